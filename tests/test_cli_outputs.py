"""Every command's outputs, the way a user (root, as CI runs) names them: a file, ``-``, a
device, a named pipe, a link, a path that cannot be written, one of the run's own inputs.

``/dev/null`` is written for real and checked to be the same character device afterwards,
with nothing new beside it in /dev.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import pandas as pd

from .support import FIXTURES, REPO, engine_parser, run_dua
from .test_outputs import F_SETPIPE_SZ, device_id, unwritable_folder

STATEMENTS = os.path.join(FIXTURES, "statements")
A = os.path.join(STATEMENTS, "plain_western", "a.pdf")
A_CSV = os.path.join(STATEMENTS, "plain_western", "a.csv")
BIG = os.path.join(STATEMENTS, "indian_multipage", "b.pdf")  # its CSV is two pages of a pipe
PARSER = os.path.join(FIXTURES, "parsers_batch", "plain_western_parser.py")
NOT_A_PDF = os.path.join(FIXTURES, "bad", "not_a_pdf.pdf")
REPORT = os.path.join(FIXTURES, "documents", "long_document.pdf")


def dev_entries() -> list:
    """What a write beside /dev/null would have left in /dev (a temp file, a partial, stamps)."""
    return sorted(n for n in os.listdir("/dev") if n.startswith((".", "null")))


def same_csv(text, path: str) -> bool:
    return pd.read_csv(io.StringIO(text) if isinstance(text, str) else io.BytesIO(text)).equals(
        pd.read_csv(path))


def dua_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DUA_LLM_")}
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return env


class Workspace(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-cli-outputs-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def path(self, *parts: str) -> str:
        return os.path.join(self.tmp, *parts)

    def dua(self, *args: str, **options) -> subprocess.CompletedProcess:
        """``python -m dua ARGS`` in the workspace (parse writes its parsers there)."""
        return run_dua(*args, cwd=self.tmp, **options)

    def dua_to_fifo(self, *args: str) -> tuple:
        """(the finished command, every byte a reader of the named pipe ``--out`` got)."""
        fifo = self.path("pipe")
        os.mkfifo(fifo)
        got: list = []

        def read() -> None:
            with open(fifo, "rb") as fh:
                got.append(fh.read())

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        done = self.dua(*args, "--out", fifo)
        if reader.is_alive():  # dua never opened it: give the reader its end
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(30)
        os.remove(fifo)
        return done, got[0] if got else None

    def dua_to_a_leaving_reader(self, *args: str) -> subprocess.CompletedProcess:
        """Run with ``--out`` a named pipe whose reader takes 10 bytes and goes away; the pipe
        holds one page, so that dua is still writing when it goes."""
        import fcntl  # POSIX only, as the rest of dua's sandbox

        fifo = self.path("pipe")
        os.mkfifo(fifo)
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader before the writer
        fcntl.fcntl(fd, F_SETPIPE_SZ, 4096)
        proc = subprocess.Popen([sys.executable, "-m", "dua", *args, "--out", fifo],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=self.tmp, env=dua_env())
        deadline, got = time.monotonic() + 120, b""
        while not got and time.monotonic() < deadline and proc.poll() is None:
            try:
                got = os.read(fd, 10)
            except BlockingIOError:
                time.sleep(0.01)
        os.close(fd)
        out, err = proc.communicate(timeout=120)
        os.remove(fifo)
        self.assertEqual(len(got), 10, err)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    def dua_to_a_closed_pipe(self, *args: str) -> subprocess.CompletedProcess:
        """Run with stdout a pipe whose reader has already gone."""
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            return subprocess.run([sys.executable, "-m", "dua", *args], stdout=write_end,
                                  stderr=subprocess.PIPE, text=True, cwd=self.tmp, env=dua_env(),
                                  timeout=300)
        finally:
            os.close(write_end)

    def assert_went_away(self, done: subprocess.CompletedProcess) -> None:
        self.assertEqual(done.returncode, 4, done.stderr)
        self.assertIn("went away before the output was whole", done.stderr)
        self.assertIn("Keep the program that reads the pipe running", done.stderr)
        self.assertNotIn("Traceback", done.stderr)
        self.assertNotIn("is a bug", done.stderr)


class DevNullTest(Workspace):
    """``--out /dev/null`` is written in place: the same device after, no sibling ever."""

    def setUp(self):
        super().setUp()
        self.device, self.beside = device_id("/dev/null"), dev_entries()

    def tearDown(self):
        self.assertEqual(device_id("/dev/null"), self.device)
        self.assertEqual(dev_entries(), self.beside)

    def test_extract_writes_dev_null_in_place(self):
        done = self.dua("extract", REPORT, "--out", "/dev/null")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, "")
        self.assertIn("-> /dev/null", done.stderr)

    def test_run_writes_dev_null_in_place_with_no_resume_stamp(self):
        done = self.dua("run", engine_parser(), A, "--out", "/dev/null", "--json")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(json.loads(done.stdout)["files"][0]["output_path"], "/dev/null")
        again = self.dua("run", engine_parser(), A, "--out", "/dev/null", "--json")
        self.assertEqual(json.loads(again.stdout)["total"]["converted"], 1)  # never "skipped"

    def test_parse_writes_dev_null_in_place_and_a_failed_run_keeps_its_rows_beside_the_parser(self):
        done = self.dua("parse", A, "--bank", "pw", "--out", "/dev/null", "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(os.listdir(self.path("custom_parsers")), ["pw_parser.py"])
        wrong = self.path("wrong.csv")
        pd.read_csv(A_CSV).iloc[:3].to_csv(wrong, index=False)
        failed = self.dua("parse", A, "--bank", "pw", "--expected", wrong, "--max-retries", "0",
                          "--out", "/dev/null", "--json", "--quiet")
        self.assertEqual(failed.returncode, 1, failed.stderr)
        partial = self.path("custom_parsers", "pw_result.partial.csv")
        self.assertEqual(json.loads(failed.stdout)["output_path"], os.path.join(
            "custom_parsers", "pw_result.partial.csv"))
        self.assertGreater(len(pd.read_csv(partial)), 3)

    def test_dev_null_as_input_and_output_is_bad_input_not_a_clash(self):
        done = self.dua("extract", "/dev/null", "--out", "/dev/null")
        self.assertEqual(done.returncode, 3, done.stderr)  # not 2: no clash of input and output
        self.assertIn("/dev/null is empty", done.stderr)


class StdoutTest(Workspace):
    """``--out -``: the output alone on stdout, progress and summaries on stderr."""

    def test_extract_writes_its_json_on_stdout(self):
        done = self.dua("extract", REPORT, "--out", "-")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(json.loads(done.stdout)["schema"], "dua.extract/1")
        self.assertIn("page 1/", done.stderr)
        self.assertEqual(os.listdir(self.tmp), [])

    def test_run_writes_the_csv_alone_on_stdout(self):
        done = self.dua("run", engine_parser(), A, "--out", "-")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(same_csv(done.stdout, A_CSV), done.stdout)
        self.assertIn("1 of 1 files done", done.stderr)
        self.assertIn("-> stdout", done.stderr)
        self.assertEqual(os.listdir(self.tmp), [])

    def test_parse_writes_the_csv_alone_on_stdout_and_its_summary_on_stderr(self):
        done = self.dua("parse", A, "--bank", "pw", "--expected", A_CSV, "--out", "-")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(same_csv(done.stdout, A_CSV), done.stdout)
        self.assertIn("passed: 16 rows from pw", done.stderr)
        self.assertEqual(os.listdir(self.path("custom_parsers")), ["pw_parser.py"])

    def test_json_and_a_csv_on_stdout_together_are_a_usage_error(self):
        for command in (("run", PARSER, A), ("parse", A, "--bank", "pw")):
            done = self.dua(*command, "--out", "-", "--json")
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertIn("--out - writes the CSV on stdout, where --json prints the report",
                          done.stderr)
            self.assertEqual(json.loads(done.stdout)["status"], "error")  # the one JSON object
        self.assertEqual(os.listdir(self.tmp), [])

    def test_a_reader_of_stdout_that_stops_early_ends_dua_quietly(self):
        for command in (("extract", REPORT, "--out", "-"), ("run", engine_parser(), A, "--out", "-")):
            done = self.dua_to_a_closed_pipe(*command)
            self.assertEqual(done.returncode, 0, done.stderr)  # `| head`, as other filters do
            self.assertNotIn("Traceback", done.stderr)
            self.assertNotIn("went away", done.stderr)

    def test_dev_stdout_whose_reader_went_away_ends_with_exit_4_and_says_so(self):
        self.assert_went_away(self.dua_to_a_closed_pipe("extract", REPORT, "--out", "/dev/stdout"))
        done = self.dua_to_a_closed_pipe("run", engine_parser(), A, "--out", "/dev/stdout")
        self.assert_went_away(done)
        self.assertIn(f"failed {A}", done.stderr)


class FifoTest(Workspace):
    """A named pipe at ``--out``: its reader gets the whole output, or its end on failure;
    a reader that goes away ends the run with exit 4 and a message."""

    def test_extract_sends_the_whole_markdown_through_a_fifo(self):
        done, got = self.dua_to_fifo("extract", REPORT, "--format", "markdown", "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        plain = self.dua("extract", REPORT, "--format", "markdown", "--quiet")
        self.assertEqual(got.decode("utf-8"), plain.stdout)

    def test_run_sends_the_whole_csv_through_a_fifo(self):
        done, got = self.dua_to_fifo("run", engine_parser(), A)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(same_csv(got, A_CSV))
        self.assertEqual(os.listdir(self.tmp), [])  # no stamp folder beside the pipe

    def test_parse_sends_the_whole_csv_through_a_fifo(self):
        done, got = self.dua_to_fifo("parse", A, "--bank", "pw", "--expected", A_CSV, "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(same_csv(got, A_CSV))

    def test_a_failed_file_gives_the_reader_its_end_instead_of_a_wait(self):
        done, got = self.dua_to_fifo("run", PARSER, NOT_A_PDF)
        self.assertEqual((done.returncode, got), (3, b""), done.stderr)

    def test_a_reader_that_goes_away_ends_the_run_with_exit_4_and_a_message(self):
        self.assert_went_away(self.dua_to_a_leaving_reader("extract", REPORT, "--quiet"))
        done = self.dua_to_a_leaving_reader("parse", BIG, "--bank", "big", "--quiet")
        self.assert_went_away(done)
        self.assertEqual(os.listdir(self.path("custom_parsers")), ["big_parser.py"])


class LinkTest(Workspace):
    def test_run_replaces_the_file_a_link_names_and_the_link_stays(self):
        os.mkdir(self.path("real"))
        os.symlink(os.path.join("real", "a.csv"), self.path("a.csv"))
        done = self.dua("run", engine_parser(), A, "--out", self.path("a.csv"))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(os.readlink(self.path("a.csv")), os.path.join("real", "a.csv"))
        with open(self.path("real", "a.csv"), "rb") as fh:
            self.assertTrue(same_csv(fh.read(), A_CSV))
        self.assertEqual(os.listdir(self.path("real")), ["a.csv"])  # the resume stamp stays
        self.assertEqual(sorted(os.listdir(self.tmp)), [".dua", "a.csv", "real"])  # by the link


class UsageTest(Workspace):
    """Destinations that cannot work: exit 2 before any work, one line naming the path,
    nothing written anywhere."""

    def assert_refused(self, *args: str, naming: str) -> None:
        before = sorted(os.listdir(self.tmp))
        done = self.dua(*args)
        self.assertEqual(done.returncode, 2, (args, done.stderr))
        self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
        self.assertIn(naming, done.stderr)
        self.assertNotIn("is a bug", done.stderr)
        self.assertEqual(sorted(os.listdir(self.tmp)), before, args)

    def test_a_folder_a_path_below_a_file_and_a_locked_folder_are_refused_by_every_command(self):
        folder, locked = self.path("folder"), self.path("locked")
        os.mkdir(folder)
        os.mkdir(locked)
        unwritable_folder(self, locked)
        for out in (folder, "/etc/passwd/x.csv", os.path.join(locked, "x.csv")):
            for command in (("extract", REPORT), ("run", PARSER, A), ("parse", A, "--bank", "x")):
                self.assert_refused(*command, "--out", out, naming=out)
        self.assert_refused("run", PARSER, A, "--out-dir", "/etc/passwd", naming="/etc/passwd")
        self.assert_refused("run", PARSER, A, "--out-dir", os.path.join(locked, "sub"),
                            naming=locked)
        self.assert_refused("run", PARSER, A, "--out-dir", "-", naming="--out-dir takes a folder")
        self.assert_refused("parse", A, "--bank", "x", "--parsers-dir", "/etc/passwd/p",
                            naming="/etc/passwd is a file")
        self.assertEqual(os.listdir(locked), [])

    def test_a_checkpoint_or_a_store_must_be_a_file_dua_can_read_back(self):
        for flags in (("--checkpoint", "/dev/null"), ("--checkpoint", self.tmp)):
            self.assert_refused("parse", A, "--bank", "x", *flags, naming=flags[1])
        payload = self.path("payload.json")
        with open(payload, "w") as fh:
            json.dump({"error": "x"}, fh)
        for db in ("/dev/null", self.tmp, "/etc/passwd/x.sqlite3", payload):
            self.assert_refused("handle", payload, "--db", db, naming=db)
        self.assert_refused("serve", "--port", "0", "--db", self.tmp, naming=self.tmp)


class InputsTest(Workspace):
    """An output that is one of the run's inputs is refused before any work, and the input
    stays as it was."""

    def setUp(self):
        super().setUp()
        self.pdf, self.csv = self.path("s.pdf"), self.path("s.csv")
        shutil.copy(A, self.pdf)
        shutil.copy(A_CSV, self.csv)

    def assert_refused(self, *args: str) -> None:
        done = self.dua(*args)
        self.assertEqual(done.returncode, 2, (args, done.stderr))
        self.assertRegex(done.stderr, "is an input of this run|one would overwrite the other")
        with open(self.pdf, "rb") as got, open(A, "rb") as original:
            self.assertEqual(got.read(), original.read())
        self.assertTrue(pd.read_csv(self.csv).equals(pd.read_csv(A_CSV)))

    def test_extract_refuses_its_pdf_through_a_link(self):
        os.symlink(self.pdf, self.path("link.json"))
        self.assert_refused("extract", self.pdf, "--out", self.path("link.json"))

    def test_run_refuses_its_pdf_its_parser_its_list_and_a_batch_input(self):
        listing = self.path("todo.txt")
        with open(listing, "w") as fh:
            fh.write("s.pdf\n")
        self.assert_refused("run", PARSER, "--from-list", listing, "--out", listing)
        # a batch writes <stem>.csv: here that is a PDF of the batch, then the list itself
        shutil.copy(A, self.path("t.csv"))
        self.assert_refused("run", PARSER, self.pdf, self.path("t.csv"), "--out-dir", self.tmp)
        os.mkdir(self.path("out"))
        with open(self.path("out", "s.csv"), "w") as fh:
            fh.write(self.pdf + "\n")
        self.assert_refused("run", PARSER, "--from-list", self.path("out", "s.csv"), "--out-dir",
                            self.path("out"))

    def test_parse_refuses_its_inputs_as_checkpoint_parser_or_partial(self):
        self.assert_refused("parse", self.pdf, "--bank", "x", "--expected", self.csv,
                            "--checkpoint", self.csv)
        self.assert_refused("parse", self.pdf, "--bank", "x", "--out",
                            self.path("custom_parsers", "x_parser.py"))
        partial = self.path("r.partial.csv")  # a failed run would write its rows here
        shutil.copy(A_CSV, partial)
        done = self.dua("parse", self.pdf, "--bank", "x", "--expected", partial, "--out",
                        self.path("r.csv"))
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn(f"the partial CSV {partial} is an input of this run", done.stderr)
        self.assertFalse(os.path.exists(self.path("custom_parsers")))


if __name__ == "__main__":
    unittest.main()
