import contextlib
import io
import json
import os
import unittest
from unittest import mock

from dua import cli
from tests.support import run_dua


class CliHelpTest(unittest.TestCase):
    def test_top_level_help_lists_commands_exit_codes_and_environment(self):
        proc = run_dua("--help")
        self.assertEqual(proc.returncode, 0)
        for word in ("parse", "run", "extract", "serve", "handle", "exit codes:", "DUA_LLM_PROVIDER",
                     "130"):
            self.assertIn(word, proc.stdout)

    def test_every_command_help_says_what_it_does_and_shows_an_example(self):
        for name in cli.COMMANDS:
            with self.subTest(command=name):
                proc = run_dua(name, "--help")
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertIn("examples:", proc.stdout)
                self.assertIn(f"dua {name}", proc.stdout)
                self.assertIn("exit codes:", proc.stdout)

    def test_no_command_prints_usage_and_exits_2(self):
        proc = run_dua()
        self.assertEqual(proc.returncode, 2)
        self.assertIn("usage: dua", proc.stderr)

    def test_unknown_command_and_bad_flag_exit_2(self):
        self.assertEqual(run_dua("frobnicate").returncode, 2)
        self.assertEqual(run_dua("--no-such-flag").returncode, 2)

    def test_version_flag(self):
        proc = run_dua("--version")
        self.assertEqual(proc.returncode, 0)
        self.assertRegex(proc.stdout, r"^dua \d+\.\d+")


class CliExitTest(unittest.TestCase):
    """Only the program (argv from sys.argv) freezes its objects for a fast exit."""

    def test_a_caller_passing_argv_keeps_its_garbage_collection(self):
        import gc

        before = gc.get_freeze_count()
        with contextlib.redirect_stderr(io.StringIO()):
            cli.main([])
        self.assertEqual(before, gc.get_freeze_count())

    def test_the_program_freezes_what_it_made_before_it_exits(self):
        import gc

        try:
            with mock.patch("sys.argv", ["dua"]), contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(2, cli.main())
            self.assertGreater(gc.get_freeze_count(), 0)
        finally:
            gc.unfreeze()


@mock.patch.dict(cli.COMMANDS, {"fake": ("a test command", "tests.cli_fake_command")})
class CliErrorPathTest(unittest.TestCase):
    def main(self, *argv, env=None):
        out, err = io.StringIO(), io.StringIO()
        with mock.patch.dict(os.environ, env or {}, clear=False), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def test_bad_input_prints_one_clear_line_and_exits_3(self):
        code, out, err = self.main("fake", "--fail", "notapdf")
        self.assertEqual(code, 3)
        self.assertEqual(out, "")
        self.assertEqual(err.count("\n"), 1)
        self.assertIn("statement.txt is not a PDF", err)
        self.assertNotIn("Traceback", err)

    def test_suggestions_are_shown_only_when_they_add_to_the_message(self):
        feedback = {"user_message": "x.pdf: data.query_id: required field is missing",
                    "recovery_suggestions": ["Fix data.query_id: required field is missing",
                                             "Re-export the PDF from the bank's website"]}
        with mock.patch.object(cli, "feedback_for", return_value=feedback):
            _, _, err = self.main("fake", "--fail", "notapdf")
        self.assertEqual(err.splitlines()[1:], ["  try: Re-export the PDF from the bank's website"])

    def test_json_flag_prints_the_feedback_object(self):
        code, out, _ = self.main("fake", "--fail", "notapdf", "--json")
        self.assertEqual(code, 3)
        doc = json.loads(out)
        self.assertEqual(doc["status"], "error")
        feedback = doc["feedback"]
        self.assertEqual(feedback["error_type"], "input_error")
        for key in ("user_message", "recovery_suggestions", "next_action"):
            self.assertIn(key, feedback)

    def test_a_bug_exits_4_without_traceback_unless_debug(self):
        code, _, err = self.main("fake", "--fail", "bug")
        self.assertEqual(code, 4)
        self.assertNotIn("Traceback", err)
        self.assertIn("--debug", err)
        code, _, err = self.main("fake", "--fail", "bug", "--debug")
        self.assertEqual(code, 4)
        self.assertIn("Traceback", err)

    def test_ctrl_c_exits_130(self):
        self.assertEqual(self.main("fake", "--fail", "interrupt")[0], 130)

    def test_broken_pipe_exits_quietly(self):
        with mock.patch.object(cli, "_silence_stdout") as silence:
            code, _, err = self.main("fake", "--fail", "pipe")
        self.assertEqual((code, err), (0, ""))
        silence.assert_called_once()

    def test_provider_comes_from_environment_when_no_flag(self):
        code, out, _ = self.main("fake", env={"DUA_LLM_PROVIDER": "gemini"})
        self.assertEqual((code, out.strip()), (0, "provider=gemini"))

    def test_bad_provider_in_environment_is_a_usage_error(self):
        code, _, err = self.main("fake", env={"DUA_LLM_PROVIDER": "skynet"})
        self.assertEqual(code, 2)
        self.assertIn("DUA_LLM_PROVIDER", err)


if __name__ == "__main__":
    unittest.main()
