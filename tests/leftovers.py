"""What the whole suite leaves behind: the working tree and the temporary folder, seen before
the first test and checked after the last (``tests/__init__.py`` wires it into discovery).

Every test's temporary files go to one folder of the suite's own (``tempfile`` and the
``TMPDIR`` its subprocesses inherit, LibreOffice's and Chromium's included), so that what a
test forgot to remove is found whatever else runs on the machine, and removed afterwards.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import unittest

from .support import REPO

_SKIPPED = {".git", "__pycache__"}  # git's own state; bytecode Python writes as it imports


def tree(root: str) -> dict:
    """{path relative to ``root``: (size, mtime) of a file, or None for a folder}."""
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIPPED]
        rel = os.path.relpath(folder, root)
        for name in dirs:
            found[os.path.normpath(os.path.join(rel, name))] = None
        for name in files:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except FileNotFoundError:  # removed while we looked
                continue
            found[os.path.normpath(os.path.join(rel, name))] = (st.st_size, st.st_mtime_ns)
    return found


def changes(before: dict, after: dict) -> list:
    """The paths added, removed or rewritten between two ``tree`` snapshots."""
    out = [f"left behind: {p}" for p in sorted(set(after) - set(before))]
    out += [f"removed: {p}" for p in sorted(set(before) - set(after))]
    out += [f"rewritten: {p}" for p in sorted(set(before) & set(after)) if before[p] != after[p]]
    return out


class Suite:
    """The state seen before the first test, and the suite's own temporary folder."""

    def __init__(self):
        self.tree = tree(REPO)
        self.cwd = os.getcwd()
        self.tmp = tempfile.mkdtemp(prefix="dua-suite-")
        self.saved = (tempfile.tempdir, os.environ.get("TMPDIR"))
        tempfile.tempdir = self.tmp  # this process
        os.environ["TMPDIR"] = self.tmp  # every subprocess: python -m dua, sandboxes, producers

    def restore(self) -> list:
        """Put the temporary folder back, remove the suite's own; what was left in it."""
        tempfile.tempdir, previous = self.saved
        if previous is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = previous
        left = sorted(tree(self.tmp))
        shutil.rmtree(self.tmp, ignore_errors=True)
        return left


SUITE: list = []  # the one Suite of this discovery run (load_tests makes it)


class LeftoversTest(unittest.TestCase):
    """Runs last: nothing the suite made outlives it, in the working tree or in temp."""

    maxDiff = None

    def test_the_suite_leaves_the_working_tree_and_the_temporary_folder_as_they_were(self):
        if not SUITE:
            self.skipTest("runs only after the whole suite (python -m unittest discover)")
        suite = SUITE.pop()
        temp = suite.restore()
        problems = changes(suite.tree, tree(REPO))
        if os.getcwd() != suite.cwd:
            problems.append(f"the current folder moved to {os.getcwd()}")
        problems += [f"left in the temporary folder: {p}" for p in temp]
        self.assertEqual(problems, [])
