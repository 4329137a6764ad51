import subprocess
import sys
import unittest

import dua
from tests.support import REPO

HEAVY = ("pandas", "pdfplumber", "pdfminer", "numpy", "urllib.request", "http.client", "http.server",
         "sqlite3", "subprocess", "ssl", "argparse")


def loaded_after(code: str) -> list:
    probe = f"import sys\n{code}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO,
                         check=True).stdout
    return out.split()


class LightImportTest(unittest.TestCase):
    def test_import_dua_loads_no_heavy_module(self):
        self.assertEqual(loaded_after("import dua"), [])

    def test_help_loads_neither_pandas_nor_pdfplumber_nor_any_command_module(self):
        code = ("import sys, io, contextlib\nfrom dua import cli\n"
                "with contextlib.redirect_stdout(io.StringIO()):\n    cli.main(['--help'])\n"
                "assert not [m for m in sys.modules if m.startswith('dua.commands.')], sys.modules")
        self.assertEqual([m for m in loaded_after(code) if m != "argparse"], [])

    def test_every_error_module_imports_light(self):
        for module in ("dua.errors", "dua.schemas", "dua.graph", "dua.config", "dua.pdf", "dua.llm"):
            with self.subTest(module=module):
                self.assertEqual(loaded_after(f"import {module}"), [])


class PublicApiTest(unittest.TestCase):
    def test_entry_functions_load_their_heavy_modules_only_on_first_use(self):
        self.assertEqual(loaded_after("import dua\nassert 'dua.documents.pipeline' not in sys.modules"), [])
        self.assertEqual(loaded_after("import dua\nassert callable(dua.extract)\n"
                                      "assert 'dua.documents.pipeline' in sys.modules"), [])

    def test_unknown_attributes_still_raise_attribute_error(self):
        with self.assertRaises(AttributeError):
            dua.no_such_thing

    def test_all_is_sorted_and_complete(self):
        self.assertEqual(list(dua.__all__), sorted(dua.__all__))
        for name in dua.__all__:
            self.assertTrue(hasattr(dua, name), name)


if __name__ == "__main__":
    unittest.main()
