"""dua.outputs: destinations checked before work, files written whole or not at all."""
from __future__ import annotations

import os
import shutil
import tempfile
import unittest

from dua import errors, outputs


class OutputsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-outputs-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.blocker = os.path.join(self.tmp, "a file")
        with open(self.blocker, "w") as fh:
            fh.write("x")

    def test_a_folder_below_a_file_is_refused_naming_the_file(self):
        with self.assertRaisesRegex(errors.UsageError, "a file is a file, not a folder"):
            outputs.check_folder(os.path.join(self.blocker, "deep", "er"), "--out-dir")

    def test_a_folder_that_does_not_exist_yet_is_accepted_and_not_made(self):
        folder = os.path.join(self.tmp, "new", "ünï côde")
        outputs.check_folder(folder, "--out-dir")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "new")))

    def test_a_file_path_that_is_a_folder_is_refused(self):
        with self.assertRaisesRegex(errors.UsageError, "is a folder, not a file"):
            outputs.check_file(self.tmp, "--out")

    def test_an_output_that_is_an_input_under_another_spelling_is_refused(self):
        spelled = os.path.join(self.tmp, ".", "a file")
        with self.assertRaisesRegex(errors.UsageError, "is an input of this run"):
            outputs.check_not_an_input(spelled, "--out", ("other.pdf", self.blocker))
        outputs.check_not_an_input(os.path.join(self.tmp, "new.csv"), "--out", (self.blocker, None))
        linked = os.path.join(self.tmp, "link")
        os.symlink(self.blocker, linked)
        with self.assertRaisesRegex(errors.UsageError, "is an input of this run"):
            outputs.check_not_an_input(self.blocker, "--out", (linked,))

    def test_writing_makes_the_folders_and_leaves_only_the_file(self):
        path = os.path.join(self.tmp, "new dir", "out ä.csv")
        outputs.write_atomically(path, "a,b\n1,2\n")
        with open(path, encoding="utf-8") as fh:
            self.assertEqual(fh.read(), "a,b\n1,2\n")
        self.assertEqual(os.listdir(os.path.dirname(path)), ["out ä.csv"])

    def test_writing_onto_a_folder_is_a_usage_error_and_leaves_no_temporary_file(self):
        target = os.path.join(self.tmp, "sub")
        os.mkdir(target)
        with self.assertRaisesRegex(errors.UsageError, "Cannot write"):
            outputs.write_atomically(target, "x")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["a file", "sub"])

    def test_a_failure_while_producing_the_content_keeps_its_own_type(self):
        def explode(fh):
            fh.write("half")
            raise OSError("disk full")

        with self.assertRaisesRegex(OSError, "disk full"):
            outputs.write_atomically(os.path.join(self.tmp, "x.csv"), explode)
        self.assertEqual(os.listdir(self.tmp), ["a file"])


if __name__ == "__main__":
    unittest.main()
