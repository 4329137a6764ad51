"""The fork server's life: interrupted runs, forked callers, and what is left behind."""
from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
import unittest

from dua import errors
from dua.sandbox import Sandbox

from .sandbox_support import PARSERS, make_statement

TEXT_PARSER = """import pandas as pd
import pdfplumber


def parse(pdf_path):
    with pdfplumber.open(pdf_path) as pdf:
        return pd.DataFrame({"pages": [len(pdf.pages)]})
"""


def _children(pid: int) -> list:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


def _gone(pid: int, within: float = 5.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().split(") ")[1].startswith("Z"):
                    return True  # a zombie waiting for its reaper has stopped running
        except OSError:
            return True
        time.sleep(0.02)
    return False


class SandboxServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="dua-sandbox-server-")
        cls.pdf = make_statement(os.path.join(cls.tmp.name, "statement.pdf"))
        cls.parser = os.path.join(cls.tmp.name, "pages.py")
        with open(cls.parser, "w") as fh:
            fh.write(TEXT_PARSER)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_interrupting_a_run_stops_its_child_and_the_next_run_starts_afresh(self):
        # Ctrl-C raises KeyboardInterrupt, as in a terminal, even when the tests run in the
        # background (where SIGINT is inherited as ignored).
        self.addCleanup(signal.signal, signal.SIGINT, signal.signal(signal.SIGINT,
                                                                    signal.default_int_handler))
        with Sandbox() as sandbox:
            sandbox.start()
            server = sandbox._server
            seen = []

            def interrupt():
                end = time.monotonic() + 20  # wait for the fork, however loaded the machine
                while not seen and time.monotonic() < end:
                    seen.extend(_children(server.pid))
                    time.sleep(0.05)
                # a real SIGINT to the main thread, as Ctrl-C would, so that select() wakes up
                signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

            timer = threading.Timer(0.3, interrupt)
            timer.start()
            with self.assertRaises(KeyboardInterrupt):
                sandbox.run(os.path.join(PARSERS, "infinite_loop.py"), self.pdf, timeout=30)
            timer.join()
            self.assertIsNone(sandbox._server)
            self.assertFalse(server.alive())
            self.assertEqual(1, len(seen), "the looping child was not found")
            self.assertTrue(_gone(seen[0]), "the looping child outlived the interrupted run")
            self.assertEqual([1], sandbox.run(self.parser, self.pdf)["pages"].tolist())

    def test_a_forked_caller_starts_its_own_server(self):
        with Sandbox() as sandbox:
            sandbox.run(self.parser, self.pdf)
            parent_server = sandbox._server.pid
            pid = os.fork()
            if pid == 0:  # the child process of this test: report by exit status only
                code = 1
                try:
                    df = sandbox.run(self.parser, self.pdf)
                    code = 0 if sandbox._server.pid != parent_server and len(df) == 1 else 2
                    sandbox.close()
                finally:
                    os._exit(code)
            _, status = os.waitpid(pid, 0)
            self.assertEqual(0, os.waitstatus_to_exitcode(status))
            self.assertEqual(parent_server, sandbox._server.pid)
            self.assertEqual(1, len(sandbox.run(self.parser, self.pdf)))

    def test_a_timed_out_run_leaves_no_process_behind(self):
        with Sandbox() as sandbox:
            sandbox.start()
            with self.assertRaises(errors.ParserTimeoutError):
                sandbox.run(os.path.join(PARSERS, "infinite_loop.py"), self.pdf, timeout=0.5)
            self.assertEqual([], _children(sandbox._server.pid))

    def test_the_server_dying_between_runs_is_replaced(self):
        with Sandbox() as sandbox:
            sandbox.start()
            old = sandbox._server
            old._proc.kill()
            old._proc.wait()
            self.assertEqual(1, len(sandbox.run(self.parser, self.pdf)))
            self.assertNotEqual(old.pid, sandbox._server.pid)

    def test_a_server_started_without_waiting_greets_on_the_first_run(self):
        # run_agent starts it so, to import pandas while the statement is being read
        with Sandbox() as sandbox:
            sandbox.start(wait=False)
            self.assertIsNone(sandbox._server.pid)  # not waited for yet
            self.assertEqual(1, len(sandbox.run(self.parser, self.pdf)))
            self.assertIsNotNone(sandbox._server.pid)

    def test_a_python_without_pandas_is_a_missing_dependency_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            fake = os.path.join(tmp, "python")
            with open(fake, "w") as fh:  # a "Python" that fails the way a bare one would
                fh.write("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'pandas'\" >&2\n"
                         "exit 1\n")
            os.chmod(fake, 0o755)
            with Sandbox(python=fake) as sandbox:
                with self.assertRaisesRegex(errors.MissingDependencyError, "pandas"):
                    sandbox.run(self.parser, self.pdf)
            with Sandbox(python=fake) as sandbox:
                sandbox.start(wait=False)  # its failure is told by the run that needs it
                with self.assertRaisesRegex(errors.MissingDependencyError, "pandas"):
                    sandbox.run(self.parser, self.pdf)
            with Sandbox(python=os.path.join(tmp, "nope")) as sandbox:
                with self.assertRaisesRegex(errors.GeneratedCodeError, "could not start"):
                    sandbox.run(self.parser, self.pdf)


if __name__ == "__main__":
    unittest.main()
