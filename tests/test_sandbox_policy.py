"""The static check: what a generated parser may contain, and how violations read."""
from __future__ import annotations

import os
import textwrap
import unittest

from dua.sandbox import Violation, check_source

from .support import FIXTURES

HEAD = "import pandas as pd\nimport pdfplumber\n\n\ndef parse(pdf_path):\n"


def _check(body: str, head: str = HEAD) -> list:
    return check_source(head + textwrap.indent(textwrap.dedent(body), "    "))


def _reasons(violations: list) -> str:
    return " | ".join(str(v) for v in violations)


class PolicyAcceptsTest(unittest.TestCase):
    def test_the_icici_parser_passes(self):
        with open(os.path.join(FIXTURES, "parsers", "icici_parser.py"), encoding="utf-8") as fh:
            self.assertEqual([], check_source(fh.read()))

    def test_a_typical_generated_parser_passes(self):
        source = textwrap.dedent('''\
            """Parser for a bank."""
            from __future__ import annotations

            import re
            from dataclasses import dataclass
            from datetime import datetime
            from decimal import Decimal
            from typing import List, Optional

            import numpy as np
            import pandas as pd
            import pdfplumber

            DATE = re.compile(r"\\d{2}-\\d{2}-\\d{4}")
            COLUMNS: List[str] = ["Date", "Amount"]
            MONTHS = {m: i for i, m in enumerate(["Jan", "Feb"], 1)}
            SEP = "|".join(["a", "b"])
            TO_FLOAT = lambda s: float(s.replace(",", ""))


            @dataclass
            class Row:
                """One row."""
                date: str
                amount: Optional[float] = None

                def __post_init__(self):
                    super().__init__()


            def _amount(text):
                try:
                    return float(Decimal(text))
                except Exception:
                    return np.nan


            def parse(pdf_path: str) -> pd.DataFrame:
                rows = []
                with pdfplumber.open(pdf_path) as pdf:
                    for page in pdf.pages:
                        for line in (page.extract_text() or "").splitlines():
                            if DATE.match(line) and hasattr(line, "strip"):
                                rows.append(Row(line[:10], _amount(line[11:])))
                print(type(rows).__name__, getattr(rows, "count"))
                return pd.DataFrame([(r.date, r.amount) for r in rows], columns=COLUMNS)


            if __name__ == "__main__":
                parse("statement.pdf")
            ''')
        self.assertEqual([], check_source(source), _reasons(check_source(source)))


class PolicyRejectsTest(unittest.TestCase):
    def assertRejected(self, violations: list, *fragments: str) -> None:
        text = _reasons(violations)
        self.assertTrue(violations, "expected a violation")
        for fragment in fragments:
            self.assertIn(fragment, text)

    def test_imports_outside_the_allow_list_name_the_module_and_the_line(self):
        for module in ("os", "sys", "socket", "subprocess", "ctypes", "importlib", "pathlib",
                       "urllib.request", "shutil", "pickle", "builtins", "dua", "requests"):
            with self.subTest(module=module):
                found = check_source(f"import {module}\n\ndef parse(pdf_path):\n    return 1\n")
                self.assertEqual([Violation(1, 0, found[0].reason)], found)
                self.assertIn(f"import of '{module}' is not allowed", found[0].reason)
        self.assertRejected(check_source("from os import path\ndef parse(p):\n  pass\n"),
                            "line 1: import of 'os'")
        self.assertRejected(check_source("from . import x\ndef parse(p):\n  pass\n"),
                            "relative import")

    def test_dangerous_builtins_are_rejected_anywhere(self):
        for name in ("eval", "exec", "compile", "__import__", "open", "globals", "vars",
                     "locals", "breakpoint", "input"):
            with self.subTest(name=name):
                self.assertRejected(_check(f"return {name}('x')\n"), f"line 6: '{name}' is not allowed")

    def test_getattr_family_needs_a_literal_attribute_name(self):
        for fn in ("getattr", "setattr", "delattr", "hasattr"):
            with self.subTest(fn=fn):
                self.assertRejected(_check(f"name = 'to_' + 'csv'\n{fn}(pd, name, None)\n"),
                                    f"line 7: {fn}() with a computed attribute name")
        self.assertEqual([], _check("return getattr(pd, 'DataFrame')\n"))
        self.assertRejected(_check("return getattr(pd, '__dict__')\n"), "'__dict__'")

    def test_attribute_lookups_hidden_in_strings_and_operator_are_rejected(self):
        self.assertRejected(_check("return '{0.__class__}'.format(pd)\n"), "'__class__'")
        self.assertRejected(
            _check("return operator.attrgetter('__cla' + 'ss__')(pd)\n",
                   HEAD.replace("import pdfplumber", "import operator")),
            "attrgetter() with a computed name")
        self.assertRejected(_check("return methodcaller(name)(pd)\n"),
                            "methodcaller() with a computed name")
        self.assertEqual([], _check("return attrgetter('a', 'b'), methodcaller('strip', x)\n"))
        self.assertEqual([], check_source('"""Uses __future__ and __init__."""\n' + HEAD +
                                          "    return 1\n"))

    def test_dunder_attributes_other_than_name_and_init_are_rejected(self):
        for attr in ("__class__", "__subclasses__", "__globals__", "__builtins__", "__dict__",
                     "__code__", "__traceback__"):
            with self.subTest(attr=attr):
                self.assertRejected(_check(f"return pd.{attr}\n"), f"'.{attr}' is not allowed")
        self.assertEqual([], _check("return pd.DataFrame.__name__\n"))

    def test_frame_walking_attributes_are_rejected(self):
        self.assertRejected(_check("g = (x for x in [])\nreturn g.gi_frame.f_back.f_globals\n"),
                            "'.gi_frame'", "'.f_back'", "'.f_globals'")
        self.assertRejected(_check("return np.ctypeslib\n", HEAD.replace(
            "import pdfplumber", "import numpy as np")), "'.ctypeslib'")

    def test_forbidden_modules_reached_as_attributes_are_rejected(self):
        cases = {"import warnings\nX = warnings.sys\n": "'.sys'",
                 "import random\nX = random._os\n": "'._os' is not allowed: it reaches the os",
                 "import pandas._config.localization as loc\nX = loc.subprocess\n": "'.subprocess'"}
        for code, reason in cases.items():
            with self.subTest(code=code):
                self.assertRejected(check_source(code + "def parse(p):\n    return X\n"), reason)
        self.assertEqual([], _check("return pd.io.common, np_select\n"))

    def test_top_level_code_other_than_definitions_is_rejected(self):
        cases = {
            "print('hi')\n": "line 1: top-level call to print()",
            "for i in range(3):\n    pass\n": "line 1: top-level for loop",
            "while True:\n    pass\n": "line 1: top-level while loop",
            "try:\n    import re\nexcept ImportError:\n    pass\n": "line 1: top-level try block",
            "X = pd.read_csv('a.csv')\n": "line 1: top-level call to read_csv()",
            "if True:\n    pass\n": "line 1: top-level if block",
        }
        for code, reason in cases.items():
            with self.subTest(code=code):
                found = check_source("import pandas as pd\n" * 0 + code +
                                     "\n\ndef parse(pdf_path):\n    return 1\n")
                self.assertRejected(found, reason)

    def test_a_module_without_parse_is_rejected(self):
        self.assertRejected(check_source("import re\n\ndef parse_pdf(path):\n    pass\n"),
                            "line 1: the module defines no top-level function parse(pdf_path)")
        self.assertRejected(check_source(""), "no top-level function parse")

    def test_syntax_errors_are_violations_with_their_line(self):
        found = check_source("def parse(pdf_path):\n    return (\n")
        self.assertEqual(1, len(found))
        self.assertIn("syntax error", found[0].reason)
        self.assertEqual(found[0].line, 2)

    def test_global_statement_is_rejected(self):
        self.assertRejected(_check("global X\nreturn 1\n"), "line 6: 'global' is not allowed")

    def test_violations_read_as_line_and_reason_in_line_order(self):
        found = check_source("import os\nimport sys\n\ndef parse(p):\n    return eval('1')\n")
        self.assertEqual([1, 2, 5], [v.line for v in found])
        self.assertTrue(str(found[0]).startswith("line 1: import of 'os' is not allowed"))
        self.assertEqual({"line": 5, "col": 11, "reason": found[2].reason}, found[2].to_dict())

    def test_non_string_source_is_a_type_error(self):
        with self.assertRaises(TypeError):
            check_source(b"import os")


if __name__ == "__main__":
    unittest.main()
