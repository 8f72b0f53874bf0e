"""CLI conventions (issue 23): "did you mean" for commands, options, layer
names, formats and cause ids; one error style (git's: "error: ..." then an
optional "hint: did you mean ...?" and the short usage, never the whole
help); --json honoured or refused everywhere; conflicting output options are
an error; `gpudoctor help CMD`; --list-causes in explain's help; one exit
status scheme, written in the top-level help."""
import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GDTestCase, GPUDOCTOR, Root, clean_env, run  # noqa: E402

COMMANDS = ["check", "matrix", "plan", "which", "explain", "bench", "health", "watch"]


class ErrorStyle(GDTestCase):
    def assert_git_style(self, err, hint=None):
        lines = err.splitlines()
        self.assertTrue(lines and lines[0].startswith("error: "), err)
        if hint:
            self.assertIn("hint: did you mean '%s'?" % hint, lines)
        else:
            self.assertFalse([line for line in lines if line.startswith("hint:")], err)
        self.assertTrue(any(line.startswith("usage: gpudoctor") for line in lines), err)
        # the short usage only: no option table, no prose of the full help
        self.assertLess(len(lines), 12, err)
        self.assertNotIn("global options:", err)

    def test_command_typo(self):
        for typo, want in (("chek", "check"), ("explian", "explain"), ("halth", "health"), ("wach", "watch"),
                           ("plna", "plan"), ("matirx", "matrix")):
            rc, out, err = run([typo])
            self.assertEqual(rc, 2, typo)
            self.assertEqual(out, "")
            self.assertIn("'%s' is not a gpudoctor command" % typo, err)
            self.assert_git_style(err, want)

    def test_near_miss_far_word_gets_no_guess(self):
        rc, _, err = run(["frobnicate"])
        self.assertEqual(rc, 2)
        self.assert_git_style(err, None)

    def test_option_typos_in_every_command(self):
        for cmd in COMMANDS:
            rc, out, err = run([cmd, "--hepl"])
            self.assertEqual(rc, 2, cmd)
            self.assertIn("unknown option '--hepl'", err, cmd)
            self.assert_git_style(err, "--help")
            self.assertIn("usage: gpudoctor " + cmd, err)

    def test_option_typo_suggests_the_commands_own_option(self):
        for argv, want in ((["check", "--uptoo", "driver"], "--upto"), (["plan", "--toch", "2.5"], "--torch"),
                           (["which", "--form", "x"], None), (["check", "--jsno"], "--json"),
                           (["watch", "--intervall", "5s"], "--interval")):
            rc, _, err = run(argv, env=clean_env())
            self.assertEqual(rc, 2, argv)
            if want:
                self.assert_git_style(err, want)

    def test_option_missing_its_value(self):
        rc, _, err = run(["check", "--upto"])
        self.assertEqual(rc, 2)
        self.assertIn("error: option '--upto' needs a value", err)

    def test_layer_and_format_typos(self):
        r = Root()
        rc, _, err = run(["check", "--upto", "drivr"], root=r.path, env=clean_env())
        self.assertEqual(rc, 2)
        self.assert_git_style(err, "driver")
        rc, _, err = run(["check", "--format", "markdwn"], root=r.path, env=clean_env())
        self.assertEqual(rc, 2)
        self.assert_git_style(err, "markdown")

    def test_cause_id_typo(self):
        rc, out, err = run(["explain", "cudnn-mising"])
        self.assertEqual(rc, 2)
        self.assert_git_style(err, "cudnn-missing")
        rc, _, err = run(["explain", "cudnn-missing"])
        self.assertEqual(rc, 0, err)

    def test_global_option_typo_before_the_command(self):
        rc, _, err = run(["--no-lod", "check"])
        self.assertEqual(rc, 2)
        self.assert_git_style(err, "--no-load")

    def test_no_command_is_an_error_with_the_short_usage(self):
        rc, out, err = run([])
        self.assertEqual(rc, 2)
        self.assert_git_style(err, None)


class HelpCommand(GDTestCase):
    def test_help_cmd_is_cmd_help(self):
        for cmd in COMMANDS:
            rc, out, err = run(["help", cmd])
            self.assertEqual(rc, 0, (cmd, err))
            rc2, out2, _ = run([cmd, "--help"])
            self.assertEqual(out, out2, cmd)

    def test_help_alone_is_the_top_help(self):
        rc, out, _ = run(["help"])
        rc2, out2, _ = run(["--help"])
        self.assertEqual((rc, out), (0, out2))

    def test_help_of_a_typo(self):
        rc, _, err = run(["help", "chek"])
        self.assertEqual(rc, 2)
        self.assert_git_style = ErrorStyle.assert_git_style.__get__(self)
        self.assert_git_style(err, "check")

    def test_list_causes_is_in_explains_help(self):
        rc, out, _ = run(["explain", "--help"])
        self.assertIn("--list-causes", out)
        rc, out, _ = run(["explain", "--list-causes"])
        self.assertEqual(rc, 0)
        self.assertIn("cudnn-missing", out)

    def test_exit_status_scheme_is_in_the_top_help(self):
        rc, out, _ = run(["--help"])
        self.assertIn("exit status (every command):", out)
        self.assertRegex(out, r"health keeps node-problem-detector's contract")


class JsonEverywhere(GDTestCase):
    def test_conflicting_output_options(self):
        r = Root()
        for argv in (["check", "--json", "--format", "text"], ["check", "--json", "--format", "markdown"],
                     ["--json", "plan", "--format", "sh"], ["plan", "--json", "--format", "text"]):
            rc, out, err = run(argv, root=r.path, env=clean_env())
            self.assertEqual(rc, 2, argv)
            self.assertEqual(out, "", argv)
            self.assertIn("--json and --format", err, argv)

    def test_near_miss_json_with_format_json_agrees(self):
        r = Root()
        rc, out, err = run(["check", "--json", "--format", "json", "--no-load"], root=r.path, env=clean_env())
        self.assertIn(rc, (0, 1), err)
        self.assertEqual(json.loads(out)["schema"], "gpudoctor.check/1")

    def test_watch_once_json_is_refused_not_ignored(self):
        r = Root()
        rc, out, err = run(["watch", "--once", "--json"], root=r.path, env=clean_env())
        self.assertEqual(rc, 2)
        self.assertEqual(out, "")
        self.assertIn("watch has no --json output", err)

    def test_every_command_honours_or_refuses_json(self):
        # honoured: the output is one JSON document; refused: exit 2 and an error
        r = Root()
        cases = {
            "check": ["check", "--no-load"],
            "matrix": ["matrix", "--torch", "2.5"],
            "plan": ["plan"],
            "which": ["which", "libcuda.so.1"],
            "explain": ["explain", "cudnn-missing"],
            "health": ["health"],
            "watch": ["watch", "--once"],
        }
        for cmd, argv in cases.items():
            rc, out, err = run(["--json"] + argv, root=r.path, env=clean_env())
            if rc == 2 and not out.strip():
                self.assertTrue(err.startswith("error: "), (cmd, err))
                continue
            try:
                doc = json.loads(out)
            except ValueError:
                self.fail("%s --json printed no JSON (rc %d): %r %r" % (cmd, rc, out[:200], err[:200]))
            self.assertIsInstance(doc, dict, cmd)


if __name__ == "__main__":
    unittest.main()
