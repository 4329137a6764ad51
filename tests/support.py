"""Helpers shared by the tests: where things are, and how to skip when public samples are absent."""
from __future__ import annotations

import os
import subprocess
import sys
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(REPO, "fixtures")
# The public samples live beside the checkout (../shared/data), never inside it.
SHARED_DATA = os.environ.get("DUA_SHARED_DATA") or os.path.join(os.path.dirname(REPO), "shared", "data")


def shared_sample(*parts: str) -> str:
    """Path of a public sample; skips the calling test with the reason when it is absent."""
    path = os.path.join(SHARED_DATA, *parts)
    if not os.path.exists(path):
        raise unittest.SkipTest(f"public sample {os.path.join(*parts)} not found under {SHARED_DATA} "
                                "(set DUA_SHARED_DATA to the shared/data folder)")
    return path


def run_dua(*args: str, input: str | None = None, env: dict | None = None, timeout: float = 300,
            cwd: str | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m dua ARGS`` the way a user does; returns the completed process."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = REPO + os.pathsep + full_env.get("PYTHONPATH", "")
    for key in [k for k in full_env if k.startswith("DUA_LLM_")]:
        del full_env[key]
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "dua", *args], input=input, capture_output=True,
                          text=True, env=full_env, timeout=timeout, cwd=cwd or REPO)


_MADE: dict = {}  # the parser dua parse made for this test module (see engine_parser)


def engine_parser() -> str:
    """statements/plain_western's parser as a user makes one (dua parse a.pdf with its
    answer key), so that dua run can check the rows it reads: its files pass and exit 0.

    Made once per test module, in a folder removed when the module's tests are done (the
    fixture parser in parsers_batch/ is hand-written, and dua run cannot check its rows).
    """
    import shutil
    import tempfile

    if "path" not in _MADE:
        folder = tempfile.mkdtemp(prefix="dua-engine-parser-")
        unittest.addModuleCleanup(_forget_made, folder)
        plain = os.path.join(FIXTURES, "statements", "plain_western")
        made = run_dua("parse", os.path.join(plain, "a.pdf"), "--bank", "plain_western",
                       "--expected", os.path.join(plain, "a.csv"), "--parsers-dir", folder,
                       "--out", os.path.join(folder, "a.csv"), "--quiet")
        if made.returncode != 0:
            shutil.rmtree(folder, True)
            raise AssertionError(f"dua parse could not make the plain_western parser: {made.stderr}")
        _MADE["path"] = os.path.join(folder, "plain_western_parser.py")
    return _MADE["path"]


def _forget_made(folder: str) -> None:
    import shutil

    _MADE.clear()
    shutil.rmtree(folder, True)
