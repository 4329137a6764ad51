"""The README's five-minute tour runs as written: each `$ ` command of its console blocks, in
order, in a fresh folder that holds the repository's fixtures, with the exit code the README
shows (``[exit N]``, else 0) and every line of output it shows (``…`` stands for what is left
out, so each piece between them must appear)."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

from tests.support import REPO

README = os.path.join(REPO, "README.md")


def tour_steps(text: str) -> list:
    """``[(command, shown_lines, exit_code)]`` from the tour section's console blocks."""
    section, fenced = [], False
    for line in text.split("## A five-minute tour", 1)[1].splitlines()[1:]:
        fenced ^= line.startswith("```")
        if line.startswith("## ") and not fenced:  # the next section ("## " in a block is output)
            break
        section.append(line)
    section = "\n".join(section) + "\n"
    steps = []
    for block in re.findall(r"```console\n(.*?)```", section, re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append([line[2:], [], 0])
            elif re.fullmatch(r"\[exit (\d+)\]", line):
                steps[-1][2] = int(line[6:-1])
            elif line.strip():
                steps[-1][1].append(line)
    return [tuple(s) for s in steps]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ReadmeTourTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(README, encoding="utf-8") as fh:
            cls.text = fh.read()
        cls.steps = tour_steps(cls.text)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-tour-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        os.symlink(os.path.join(REPO, "fixtures"), os.path.join(self.tmp, "fixtures"))
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("DUA_LLM_")}
        self.env["PYTHONPATH"] = REPO + os.pathsep + self.env.get("PYTHONPATH", "")
        self.env["DUA_HOME"] = os.path.join(self.tmp, "home")
        self.port = str(free_port())  # 8765 may be taken on a shared machine

    def _argv(self, command: str) -> list:
        argv = shlex.split(command.replace("8765", self.port))
        if argv[:3] == ["python", "-m", "dua"]:
            argv[0] = sys.executable
        return argv

    def _serve(self, command: str) -> str:
        """Start ``dua serve … &`` as the shell would, and wait until it answers."""
        proc = subprocess.Popen(self._argv(command[:-1].strip()), cwd=self.tmp, env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.addCleanup(proc.stderr.close)
        self.addCleanup(proc.wait, 30)
        self.addCleanup(proc.terminate)  # our own child, by its handle
        first = proc.stderr.readline()  # "listening on …", printed once it is bound
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2).close()
                return first.replace(self.port, "8765")
            except OSError:
                time.sleep(0.2)
        self.fail(f"dua serve did not answer: {first}")

    def test_the_tour_shows_every_command_it_promises(self):
        commands = " ".join(c for c, _, _ in self.steps)
        for needle in ("dua parse", "--expected", "dua run", "--review", "dua check",
                       "--normalize --format ofx", "dua extract", "dua serve", "/v1/errors"):
            self.assertIn(needle, commands)
        parse = [c for c, _, _ in self.steps if " parse " in c]
        self.assertTrue([c for c in parse if "--expected" not in c])  # and one without a key

    def test_each_command_of_the_tour_exits_prints_and_writes_as_the_readme_says(self):
        self.assertGreaterEqual(len(self.steps), 8)
        for command, shown, code in self.steps:
            with self.subTest(command=command):
                if command.startswith("curl ") and not shutil.which("curl"):
                    self.skipTest("curl is not installed: the tour's POST to dua serve is not run")
                if command.endswith("&"):
                    output = self._serve(command)
                else:
                    done = subprocess.run(self._argv(command), cwd=self.tmp, env=self.env,
                                          capture_output=True, text=True, timeout=300)
                    self.assertEqual(done.returncode, code, done.stderr[-2000:])
                    output = (done.stdout + done.stderr).replace(self.port, "8765")
                for line in shown:
                    for piece in (p.strip() for p in line.split("…")):
                        self.assertIn(piece, output, line)
        # and the files the tour names are there after it
        for name in ("custom_parsers/harbor_parser.py", "b.csv", "out/b.csv",
                     "out/review/index.html", "wrong.html", "b.ofx"):
            self.assertTrue(os.path.isfile(os.path.join(self.tmp, name)), name)
        with open(os.path.join(self.tmp, "b.ofx"), encoding="utf-8") as fh:
            self.assertEqual(fh.read().count("<STMTTRN>"), 23)


class ReadmeShapeTest(unittest.TestCase):
    def test_the_readme_teaches_in_few_lines_and_speaks_no_internal_jargon(self):
        with open(README, encoding="utf-8") as fh:
            text = fh.read()
        self.assertLessEqual(len(text.splitlines()), 350)
        self.assertNotRegex(text, r"(?i)\bseed\s*\d")
        self.assertNotIn("I'll retry shortly", text)

    def test_the_first_two_commands_are_install_and_run_then_install_and_test(self):
        with open(README, encoding="utf-8") as fh:
            block = fh.read().split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
        self.assertTrue(block[0].startswith("python -m pip install . && python -m dua parse "))
        with open(os.path.join(REPO, ".ci", "run"), encoding="utf-8") as fh:
            ci = fh.read()
        self.assertEqual(block[1], "python -m pip install -e '.[dask,test]' && "
                                   "python -m unittest discover -s tests -t .")
        # CI runs the README's test command verbatim, its pip told to be quiet
        self.assertIn(block[1], ci.replace("pip install -q ", "pip install "))


if __name__ == "__main__":
    unittest.main()
