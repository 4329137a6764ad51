"""Import time of ``import dua`` against a bare interpreter start (``python -c pass``)."""
from __future__ import annotations

import os
import subprocess
import sys

from .figures import Figure, best_of

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _python(code: str) -> None:
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def run() -> list:
    floor = best_of(lambda: _python("pass"), repeat=7)
    dua = best_of(lambda: _python("import dua"), repeat=7)
    helps = best_of(lambda: subprocess.run([sys.executable, "-m", "dua", "--help"], cwd=REPO,
                                           capture_output=True, check=True), repeat=5)
    return [
        Figure("python -c 'import dua'", dua, floor, floor_name="python -c pass"),
        Figure("python -m dua --help", helps, floor, floor_name="python -c pass"),
    ]
