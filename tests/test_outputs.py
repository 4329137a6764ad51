"""dua.outputs: destinations checked before work; a file written whole or not at all, a device
or a pipe written in place, a link kept a link.

Run as CI runs (root): ``/dev/null`` itself is written, and checked to be the same character
device afterwards. ``tests/test_cli_outputs.py`` does the same through every command.
"""
from __future__ import annotations

import errno
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from dua import errors, outputs

from .support import REPO

F_SETPIPE_SZ = 1031  # fcntl.F_SETPIPE_SZ, named there only from Python 3.10


def device_id(path: str) -> tuple:
    """What makes a device node that device: its type bits and numbers, and its inode."""
    st = os.stat(path)
    return stat.S_IFMT(st.st_mode), st.st_rdev, st.st_ino


def unwritable_folder(test: unittest.TestCase, folder: str) -> None:
    """Make ``folder`` one its user cannot write: by mode for a user, immutable for root (who
    writes through any mode); skips where neither holds. Undone at cleanup."""
    if os.geteuid() != 0:
        os.chmod(folder, 0o555)
        test.addCleanup(os.chmod, folder, 0o755)
        return
    if not shutil.which("chattr"):
        test.skipTest("chattr is not installed: root writes through any folder mode")
    test.addCleanup(subprocess.run, ["chattr", "-i", folder], capture_output=True)
    if subprocess.run(["chattr", "+i", folder], capture_output=True).returncode != 0:
        test.skipTest(f"this file system cannot make {folder} immutable (chattr +i)")


def read_in_thread(fifo: str) -> tuple:
    """(thread, list) where the list gets everything read from ``fifo`` until its end."""
    got: list = []

    def read() -> None:
        with open(fifo, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, got


class Workspace(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-outputs-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.blocker = os.path.join(self.tmp, "a file")
        with open(self.blocker, "w") as fh:
            fh.write("x")

    def path(self, *parts: str) -> str:
        return os.path.join(self.tmp, *parts)

    def read(self, path: str) -> str:
        with open(path, encoding="utf-8") as fh:
            return fh.read()


class CheckTest(Workspace):
    """The usage errors: each names the path, and nothing is written anywhere."""

    def test_a_folder_below_a_file_is_refused_naming_the_file(self):
        with self.assertRaisesRegex(errors.UsageError, "a file is a file, not a folder"):
            outputs.check_folder(os.path.join(self.blocker, "deep", "er"), "--out-dir")
        with self.assertRaisesRegex(errors.UsageError, "/etc/passwd/x.csv: /etc/passwd is a file"):
            outputs.check_file("/etc/passwd/x.csv", "--out")

    def test_a_folder_that_does_not_exist_yet_is_accepted_and_not_made(self):
        folder = self.path("new", "ünï côde")
        outputs.check_folder(folder, "--out-dir")
        self.assertFalse(os.path.exists(self.path("new")))

    def test_a_file_path_that_is_a_folder_is_refused(self):
        with self.assertRaisesRegex(errors.UsageError, "is a folder, not a file"):
            outputs.check_file(self.tmp, "--out")

    def test_a_folder_nobody_can_write_is_refused_naming_it(self):
        folder = self.path("locked")
        os.mkdir(folder)
        unwritable_folder(self, folder)
        with self.assertRaisesRegex(errors.UsageError, f"{folder} is not writable"):
            outputs.check_file(os.path.join(folder, "out.csv"), "--out")
        with self.assertRaisesRegex(errors.UsageError, "is not writable"):
            outputs.check_folder(os.path.join(folder, "new"), "--out-dir")
        with self.assertRaises(errors.UsageError):  # and the write itself, unchecked, too
            outputs.write_output(os.path.join(folder, "out.csv"), "x")
        self.assertEqual(os.listdir(folder), [])

    def test_a_socket_and_a_block_device_are_refused(self):
        sock = socket.socket(socket.AF_UNIX)
        self.addCleanup(sock.close)
        sock.bind(self.path("sock"))
        with self.assertRaisesRegex(errors.UsageError, "neither a file, a character device"):
            outputs.check_file(self.path("sock"), "--out")
        try:
            os.mknod(self.path("disk"), stat.S_IFBLK | 0o600, os.makedev(7, 0))
        except PermissionError:
            return  # only root makes device nodes
        with self.assertRaisesRegex(errors.UsageError, "neither a file, a character device"):
            outputs.check_file(self.path("disk"), "--out")
        with self.assertRaises(errors.UsageError):
            outputs.write_output(self.path("disk"), "x")

    def test_a_stream_is_refused_where_dua_reads_the_file_back(self):
        for stream in ("/dev/null", "-"):
            outputs.check_file(stream, "--out")
            with self.assertRaisesRegex(errors.UsageError, "is not a file: dua reads it back"):
                outputs.check_file(stream, "--checkpoint", streams=False)

    def test_a_dash_is_not_a_folder(self):
        with self.assertRaisesRegex(errors.UsageError, "takes a folder, not -"):
            outputs.check_folder("-", "--out-dir")

    def test_an_output_that_is_an_input_under_another_spelling_is_refused(self):
        spelled = os.path.join(self.tmp, ".", "a file")
        with self.assertRaisesRegex(errors.UsageError, "is an input of this run"):
            outputs.check_not_an_input(spelled, "--out", ("other.pdf", self.blocker))
        outputs.check_not_an_input(self.path("new.csv"), "--out", (self.blocker, None))
        linked = self.path("link")
        os.symlink(self.blocker, linked)
        with self.assertRaisesRegex(errors.UsageError, "is an input of this run"):
            outputs.check_not_an_input(self.blocker, "--out", (linked,))
        os.link(self.blocker, self.path("hard"))
        with self.assertRaisesRegex(errors.UsageError, "is an input of this run"):
            outputs.check_none_is_an_input([self.path("new.csv"), self.path("hard")], "the output",
                                           (self.blocker,))

    def test_a_device_is_never_an_input_though_two_spellings_are_the_same_file(self):
        self.assertTrue(os.path.samefile("/dev/null", "/dev/../dev/null"))
        outputs.check_not_an_input("/dev/null", "--out", ("/dev/../dev/null", "-"))
        outputs.check_not_an_input("-", "--out", ("-",))

    def test_two_outputs_of_one_run_on_one_file_are_refused_naming_both(self):
        linked = self.path("link.csv")
        os.symlink("out.csv", linked)
        with self.assertRaisesRegex(errors.UsageError, "--out .*out.csv is also --checkpoint"):
            outputs.check_apart(((self.path("out.csv"), "--out"), (linked, "--checkpoint")))
        outputs.check_apart((("/dev/null", "--out"), ("/dev/null", "--review"),
                             (self.path("a.csv"), "--checkpoint"), (None, "--other")))


class AtomicFileTest(Workspace):
    """The table's first row: a regular file appears whole by a rename, or not at all."""

    def test_writing_makes_the_folders_and_leaves_only_the_file(self):
        path = self.path("new dir", "out ä.csv")
        outputs.write_output(path, "a,b\n1,2\n")
        self.assertEqual(self.read(path), "a,b\n1,2\n")
        self.assertEqual(os.listdir(os.path.dirname(path)), ["out ä.csv"])

    def test_writing_onto_a_folder_is_a_usage_error_and_leaves_no_temporary_file(self):
        target = self.path("sub")
        os.mkdir(target)
        for write in (outputs.write_atomically, outputs.write_output):
            with self.assertRaisesRegex(errors.UsageError, "Cannot write"):
                write(target, "x")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["a file", "sub"])
        self.assertEqual(os.listdir(target), [])

    def test_a_content_callback_that_raises_leaves_the_old_file_and_no_temporary_file(self):
        path = self.path("x.csv")
        outputs.write_output(path, "old\n")

        def explode(fh):
            fh.write("half" * 100_000)
            raise RuntimeError("the frame could not be written")

        with self.assertRaisesRegex(RuntimeError, "could not be written"):
            outputs.write_output(path, explode)
        self.assertEqual(self.read(path), "old\n")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["a file", "x.csv"])

    def test_a_failed_write_is_an_output_error_and_leaves_no_temporary_file(self):
        def disk_full(fh):
            fh.write("half")
            raise OSError(errno.ENOSPC, "No space left on device")

        with self.assertRaisesRegex(errors.OutputError, "x.csv: No space left on device"):
            outputs.write_output(self.path("x.csv"), disk_full)
        self.assertEqual(os.listdir(self.tmp), ["a file"])

    def test_a_writer_killed_mid_write_leaves_the_old_file_and_no_temporary_file(self):
        path = self.path("out.csv")
        outputs.write_output(path, "old\n")
        child = subprocess.Popen(
            [sys.executable, "-c", "import sys, time\nfrom dua import outputs\n"
             "def slow(fh):\n    fh.write('new,' * 500_000)\n    fh.flush()\n"
             "    print('writing', flush=True)\n    time.sleep(60)\n"
             "outputs.write_output(sys.argv[1], slow)\n", path],
            stdout=subprocess.PIPE, text=True, cwd=REPO, env=dict(os.environ, PYTHONPATH=REPO))
        self.addCleanup(child.stdout.close)
        self.assertEqual(child.stdout.readline(), "writing\n")  # 2 MB written, not yet renamed
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        self.assertEqual(self.read(path), "old\n")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["a file", "out.csv"])

    def test_a_concurrent_reader_never_sees_half_a_file(self):
        path = self.path("out.csv")
        versions = {f"version {n}\n" + f"row of version {n}\n" * 50_000 + "end\n" for n in range(12)}
        outputs.write_output(path, "version -\nend\n")
        seen, stop = [], threading.Event()

        def read() -> None:
            while not stop.is_set():
                with open(path, encoding="utf-8") as fh:
                    seen.append(fh.read())

        reader = threading.Thread(target=read)
        reader.start()
        try:
            for text in sorted(versions):
                outputs.write_output(path, lambda fh, text=text: [fh.write(line) for line in
                                                                   text.splitlines(True)])
        finally:
            stop.set()
            reader.join()
        self.assertGreater(len(seen), 1)
        whole = versions | {"version -\nend\n"}
        self.assertEqual([n for n, text in enumerate(seen) if text not in whole], [])

    def test_a_replaced_file_keeps_its_permissions(self):
        path = self.path("private.csv")
        outputs.write_output(path, "old\n")
        os.chmod(path, 0o600)
        outputs.write_output(path, "new\n")
        self.assertEqual((self.read(path), stat.S_IMODE(os.stat(path).st_mode)), ("new\n", 0o600))


class StreamTest(Workspace):
    """Devices and pipes are written where they are: never renamed over, never a sibling."""

    def test_dev_null_is_the_same_character_device_after_a_write(self):
        before = device_id("/dev/null")
        self.assertEqual((stat.S_IFMT(before[0]), before[1]), (stat.S_IFCHR, os.makedev(1, 3)))
        outputs.check_file("/dev/null", "--out")
        outputs.write_output("/dev/null", "a,b\n" * 100_000)
        outputs.write_output("/dev/null", lambda fh: fh.write("c,d\n"))
        self.assertEqual(device_id("/dev/null"), before)
        self.assertEqual([n for n in os.listdir("/dev") if n.startswith((".null", "null."))], [])

    def test_a_device_in_a_folder_nobody_can_write_is_written_in_place(self):
        node = self.path("dev", "null")
        os.mkdir(os.path.dirname(node))
        try:
            os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            self.skipTest("only root makes device nodes")
        unwritable_folder(self, os.path.dirname(node))
        before = device_id(node)
        outputs.check_file(node, "--out")  # the folder is not asked: nothing is made there
        outputs.write_output(node, "x" * 100_000)
        self.assertEqual(device_id(node), before)
        self.assertEqual(os.listdir(os.path.dirname(node)), ["null"])

    def test_a_fifo_reader_receives_the_whole_output(self):
        fifo = self.path("pipe")
        os.mkfifo(fifo)
        reader, got = read_in_thread(fifo)
        rows = [f"{n},row {n}\n" for n in range(200_000)]  # 3 MB: many times a pipe's buffer
        outputs.write_output(fifo, lambda fh: fh.writelines(rows))
        reader.join(60)
        self.assertEqual(got, ["".join(rows).encode()])
        self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode))
        self.assertEqual(sorted(os.listdir(self.tmp)), ["a file", "pipe"])

    def test_a_fifo_reader_that_goes_away_is_an_output_closed_error(self):
        import fcntl  # POSIX only, as the rest of dua's sandbox

        fifo = self.path("pipe")
        os.mkfifo(fifo)
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, there before the writer
        fcntl.fcntl(fd, F_SETPIPE_SZ, 4096)

        def read_a_little_and_leave() -> None:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    if os.read(fd, 10):
                        break
                except BlockingIOError:
                    pass
                time.sleep(0.01)
            os.close(fd)

        reader = threading.Thread(target=read_a_little_and_leave)
        reader.start()
        with self.assertRaisesRegex(errors.OutputClosedError, "reader of .*pipe went away") as cm:
            outputs.write_output(fifo, "x" * 1_000_000)
        reader.join()
        self.assertEqual((cm.exception.exit_code, cm.exception.error_code), (4, "OUTPUT_CLOSED"))

    def test_end_stream_gives_a_fifo_reader_its_end_and_leaves_files_alone(self):
        fifo = self.path("pipe")
        os.mkfifo(fifo)
        reader, got = read_in_thread(fifo)
        outputs.end_stream(fifo)
        reader.join(60)
        self.assertEqual(got, [b""])
        outputs.end_stream(self.path("never.csv"))
        outputs.end_stream(None)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["a file", "pipe"])

    def run_child(self, code: str, stdout) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", "import sys\nfrom dua import outputs\n" + code],
                              stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=60,
                              cwd=REPO, env=dict(os.environ, PYTHONPATH=REPO))

    def test_dev_stdout_is_written_where_the_shell_sent_it_not_replaced(self):
        log = self.path("log.txt")
        with open(log, "w") as fh:
            fh.write("kept\n")
        with open(log, "a") as fh:  # dua ... --out /dev/stdout >> log.txt
            done = self.run_child("print('before')\noutputs.write_output('/dev/stdout', 'a,b\\n')\n"
                                  "print('after')\n", fh)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.read(log), "kept\nbefore\na,b\nafter\n")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["a file", "log.txt"])

    def test_dash_is_standard_output(self):
        done = self.run_child("outputs.write_output('-', lambda fh: fh.write('a,b\\n'))\n",
                              subprocess.PIPE)
        self.assertEqual((done.returncode, done.stdout), (0, "a,b\n"), done.stderr)


class LinkTest(Workspace):
    """A symbolic link stays a link; the file it points to is replaced whole."""

    def test_a_link_stays_a_link_and_its_file_is_replaced_whole(self):
        os.mkdir(self.path("real"))
        os.mkdir(self.path("links"))
        target = self.path("real", "out.csv")
        outputs.write_output(target, "old\n")
        link = self.path("links", "out.csv")
        os.symlink(os.path.join("..", "real", "out.csv"), link)
        outputs.check_file(link, "--out")
        outputs.write_output(link, "new\n")
        self.assertEqual(os.readlink(link), os.path.join("..", "real", "out.csv"))
        self.assertEqual(self.read(target), "new\n")
        self.assertEqual((os.listdir(self.path("real")), os.listdir(self.path("links"))),
                         (["out.csv"], ["out.csv"]))

    def test_a_dangling_link_makes_the_file_it_names(self):
        link = self.path("link.csv")
        os.symlink("made.csv", link)
        outputs.write_output(link, "a\n")
        self.assertTrue(os.path.islink(link))
        self.assertEqual(self.read(self.path("made.csv")), "a\n")

    def test_a_link_to_dev_null_writes_the_device_in_place(self):
        link = self.path("null.csv")
        os.symlink("/dev/null", link)
        before = device_id("/dev/null")
        outputs.write_output(link, "a\n" * 10_000)
        self.assertEqual((os.readlink(link), device_id("/dev/null")), ("/dev/null", before))

    def test_a_loop_of_links_is_a_usage_error(self):
        os.symlink("b", self.path("a"))
        os.symlink("a", self.path("b"))
        with self.assertRaisesRegex(errors.UsageError, "Cannot write .*a:"):
            outputs.check_file(self.path("a"), "--out")


if __name__ == "__main__":
    unittest.main()
