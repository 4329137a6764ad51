"""Nothing outlives dua: killed mid-read with SIGKILL, SIGTERM or Ctrl-C, no process it started
is left a second later (the forked reader, the sandbox server, batch workers, their children).

dua runs in a session of its own, which every process it starts inherits (except the sandbox's
parser runs, found by their server's parent in their command line); ``/proc`` says who is left.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from .support import FIXTURES, REPO

LOOPS = os.path.join(FIXTURES, "bad", "operator_flood.pdf")  # minutes of pdfminer
STATEMENTS = os.path.join(FIXTURES, "statements")


def _stat(pid: int) -> list | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _processes() -> list:
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def _of_session(sid: int) -> set:
    """Live (not zombie) processes of session ``sid``, and sandbox runs started for them."""
    live = {}
    for pid in _processes():
        fields = _stat(pid)
        if fields and fields[0] != "Z":
            live[pid] = fields
    found = {pid for pid, fields in live.items() if int(fields[3]) == sid}
    for pid in live:  # a sandbox server's parser run leaves the session: its server says whose
        line = _cmdline(pid)
        if "_child.py" in line and any(f'"parent": {p}' in line for p in found | {sid}):
            found.add(pid)
    return found


@unittest.skipUnless(os.path.isdir("/proc"), "needs /proc to see which processes are left")
class NothingOutlivesDuaTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        # what a killed dua cannot remove (a sandbox server's folder) lands here too
        self.env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""),
                        TMPDIR=self.tmp)
        for key in [k for k in self.env if k.startswith("DUA_LLM_")]:
            del self.env[key]

    def start(self, *args: str, sigint=signal.SIG_DFL) -> subprocess.Popen:
        # dua as a terminal starts it: Ctrl-C at its default, even where the suite itself was
        # started in the background with SIGINT ignored (``sigint``: another disposition)
        proc = subprocess.Popen([sys.executable, "-m", "dua", *args], cwd=self.tmp, env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                start_new_session=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, sigint))
        self.addCleanup(self._kill_session, proc.pid)
        self.addCleanup(proc.stderr.close)
        return proc

    def _kill_session(self, sid: int) -> None:
        for pid in _of_session(sid):  # only what this test started, should the test fail
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def wait_for_children(self, proc: subprocess.Popen, count: int) -> set:
        """The session once it holds ``count`` processes (dua reading, its helpers started)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = _of_session(proc.pid)
            if len(found) >= count:
                time.sleep(0.5)  # well inside the read
                return _of_session(proc.pid)
            if proc.poll() is not None:
                self.fail(f"dua ended early: {proc.stderr.read().decode()}")
            time.sleep(0.05)
        self.fail(f"dua never started {count} processes")

    def assert_nothing_left(self, sid: int, within: float = 1.0) -> None:
        deadline = time.monotonic() + within
        while _of_session(sid) and time.monotonic() < deadline:
            time.sleep(0.02)
        left = {pid: _cmdline(pid)[:120] for pid in _of_session(sid)}
        self.assertEqual(left, {}, f"still running {within} s after dua ended")

    def test_sigkill_of_dua_parse_mid_read_leaves_no_process(self):
        proc = self.start("parse", LOOPS, "--bank", "loops", "--read-timeout", "60", "-q")
        seen = self.wait_for_children(proc, 3)  # dua, its reader, the sandbox server
        self.assertTrue(any("_child.py" in _cmdline(pid) for pid in seen), seen)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        self.assert_nothing_left(proc.pid)

    def test_sigkill_of_dua_extract_mid_read_leaves_no_process(self):
        proc = self.start("extract", LOOPS, "--read-timeout", "60", "-q")
        self.wait_for_children(proc, 2)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        self.assert_nothing_left(proc.pid)

    def test_sigterm_of_dua_parse_mid_read_leaves_no_process(self):
        proc = self.start("parse", LOOPS, "--bank", "loops", "--read-timeout", "60", "-q")
        self.wait_for_children(proc, 3)
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        self.assert_nothing_left(proc.pid)

    def test_ctrl_c_ends_dua_parse_and_its_reader_with_exit_130(self):
        proc = self.start("parse", LOOPS, "--bank", "loops", "--read-timeout", "60", "-q")
        self.wait_for_children(proc, 3)
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole foreground group
        self.assertEqual(proc.wait(timeout=30), 130)
        self.assert_nothing_left(proc.pid)

    def test_where_dua_ignores_ctrl_c_its_reader_does_too(self):
        # a job a shell started in the background ignores SIGINT; a Ctrl-C to its group must
        # not kill the reader alone, which dua would then report as a damaged file
        proc = self.start("parse", LOOPS, "--bank", "loops", "--read-timeout", "60", "-q",
                          sigint=signal.SIG_IGN)
        seen = self.wait_for_children(proc, 3)
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(1.0)
        self.assertIsNone(proc.poll(), proc.stderr.read().decode() if proc.poll() else "")
        self.assertTrue(set(seen) <= set(_of_session(proc.pid)), "a process of dua's ended")

    def test_sigkill_of_a_dua_run_batch_mid_read_leaves_no_process(self):
        parser = self._parser()
        good = os.path.join(STATEMENTS, "troff_tbl", "b.pdf")
        proc = self.start("run", parser, LOOPS, good, LOOPS, "--out-dir", self.tmp,
                          "--workers", "2", "--read-timeout", "60", "-q")
        self.wait_for_children(proc, 4)  # dua, two workers, a reader
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        self.assert_nothing_left(proc.pid)

    def _parser(self) -> str:
        path = os.path.join(FIXTURES, "parsers", "troff_tbl_parser.py")
        if not os.path.exists(path):
            made = subprocess.run([sys.executable, "-m", "dua", "parse",
                                   os.path.join(STATEMENTS, "troff_tbl", "a.pdf"), "--bank",
                                   "troff_tbl", "--parsers-dir", self.tmp, "-q"],
                                  cwd=self.tmp, env=self.env, capture_output=True, timeout=300)
            self.assertIn(made.returncode, (0, 1), made.stderr)
            path = os.path.join(self.tmp, "troff_tbl_parser.py")
        return path


class DieWithParentTest(unittest.TestCase):
    @unittest.skipUnless(hasattr(os, "fork"), "needs fork")
    def test_a_child_whose_parent_is_already_gone_ends_at_once(self):
        # in a fresh interpreter: the test runner's threads make forking here unsafe
        code = ("import os; from dua import lifetime\n"
                "pid = os.fork()\n"
                "if pid == 0:\n"
                "    lifetime.die_with_parent(os.getppid() + 1000000)\n"  # not its parent
                "    os._exit(0)\n"
                "print(os.WEXITSTATUS(os.waitpid(pid, 0)[1]))\n")
        env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, timeout=60)
        self.assertEqual(done.stdout.strip(), "1", done.stderr)


if __name__ == "__main__":
    unittest.main()
