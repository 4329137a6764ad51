"""``import dua.sandbox`` stays light, and its public names are the promised ones."""
from __future__ import annotations

import subprocess
import sys
import unittest

import dua.sandbox

from .support import REPO

HEAVY = ("pandas", "pdfplumber", "numpy", "subprocess", "urllib.request", "sqlite3", "ssl")


class SandboxImportTest(unittest.TestCase):
    def test_importing_the_sandbox_loads_no_heavy_module(self):
        probe = ("import sys, dua.sandbox\n"
                 f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                             cwd=REPO, check=True).stdout
        self.assertEqual("", out.strip())

    def test_all_is_sorted_and_complete(self):
        self.assertEqual(sorted(dua.sandbox.__all__), list(dua.sandbox.__all__))
        for name in ("check_source", "run_parser", "Sandbox", "Violation"):
            self.assertIn(name, dua.sandbox.__all__)
        for name in dua.sandbox.__all__:
            self.assertTrue(hasattr(dua.sandbox, name), name)


if __name__ == "__main__":
    unittest.main()
