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
