"""bkctl's command line: help, version, and usage errors shared by every subcommand."""

import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bkctl_cli import CliTestCase, VERSION, run, validate  # noqa: E402

COMMANDS = ["devices", "alloc", "schema", "sched"]


class HelpAndVersion(CliTestCase):
    def test_version(self):
        for flag in ("--version", "-V"):
            result = run(flag)
            self.assertOk(result)
            lines = result.stdout.splitlines()
            self.assertRegex(lines[0], r"^bkctl \d+\.\d+\.\d+$")
            if VERSION:
                self.assertEqual(lines[0], f"bkctl {VERSION}")
            for field in ("commit", "build", "compiler", "plugins"):
                self.assertTrue(any(line.startswith(field + ":") for line in lines), f"{field} in {lines}")

    def test_version_json_names_the_build(self):
        result = run("--version", "--json")
        self.assertOk(result)
        document = json.loads(result.stdout)
        validate(document, "bk.version.v1.json")
        if VERSION:
            self.assertEqual(document["bkctl_version"], VERSION)
        # The text and the JSON tell the same build.
        text = run("--version").stdout
        self.assertIn(f"commit:   {document['commit']}", text)
        self.assertIn(", ".join(document["plugins_built"]), text)
        self.assertIn("sim", document["plugins_built"])

    def test_version_takes_only_json(self):
        self.assertOneLineError(run("--version", "--csv"), 2, "--version", "--csv")

    def test_top_level_help_lists_commands_and_exit_codes(self):
        result = run("--help")
        self.assertOk(result)
        self.assertEqual(result.stderr, "")
        for command in COMMANDS:
            self.assertRegex(result.stdout, rf"(?m)^\s+{command}\s+\S")
        for code, meaning in [(0, "ok"), (1, "a check failed"), (2, "usage or bad input"),
                              (3, "device not found"), (4, "out of memory"), (5, "device error or timeout")]:
            self.assertRegex(result.stdout, rf"\b{code}  {meaning}")

    def test_help_speaks_one_placeholder_vocabulary(self):
        # CLI11's own type names never show; numbers are N, defaults and "required" are in words.
        for command in ("devices", "alloc", "schema", "sched", "ops", "bench", "smoke"):
            with self.subTest(command=command):
                text = run(command, "--help").stdout
                self.assertNotRegex(text, r"\b(TEXT|INT|UINT|FLOAT)\b")
                # CLI11 writes defaults as "INT=2"; a placeholder pair like NAME=DEV is fine.
                self.assertNotRegex(text, r"(?m)^  -\S+ [A-Z]+=[^A-Z]", "defaults go in the description")
        self.assertIn("--layers N", run("sched", "--help").stdout)
        self.assertRegex(run("alloc", "--help").stdout, r"(?s)--size SIZE\s+Bytes per buffer[^-]*\(required\)")

    def test_every_command_has_help_with_examples(self):
        for command in COMMANDS:
            with self.subTest(command=command):
                result = run(command, "--help")
                self.assertOk(result)
                self.assertIn(f"Usage: bkctl {command}", result.stdout)
                examples = result.stdout.split("Examples:", 1)
                self.assertEqual(len(examples), 2, "a footer with examples")
                self.assertIn(f"bkctl {command}", examples[1])


class UsageErrors(CliTestCase):
    def test_no_command(self):
        self.assertOneLineError(run(), 2, "bkctl --help")

    def test_unknown_command(self):
        line = self.assertOneLineError(run("frobnicate"), 2, "'frobnicate'")
        for command in COMMANDS:
            self.assertIn(command, line)

    def test_unknown_flags(self):
        self.assertOneLineError(run("--frobnicate"), 2, "--frobnicate")
        self.assertOneLineError(run("--frobnicate", "devices"), 2, "--frobnicate")
        for command in COMMANDS:
            with self.subTest(command=command):
                self.assertOneLineError(run(command, "--frobnicate"), 2, "--frobnicate", f"bkctl {command} --help")

    def test_typos_get_a_suggestion(self):
        line = self.assertOneLineError(run("devcies"), 2, "'devcies'", "did you mean 'devices'?")
        self.assertIn("commands: devices, alloc", line)
        self.assertOneLineError(run("alloc", "--devcie", "CPU", "--size", "1MiB"), 2, "'--devcie'",
                                "did you mean '--device'?", "bkctl alloc --help")
        self.assertOneLineError(run("--verison"), 2, "did you mean '--version'?")
        self.assertNotIn("did you mean", run("frobnicate").stderr)

    def test_flag_value_missing(self):
        self.assertOneLineError(run("alloc", "--device"), 2, "bkctl alloc --help")

    def test_messages_are_single_lines_without_cli11_boilerplate(self):
        result = run("alloc", "--count", "x")
        self.assertEqual(result.returncode, 2)
        self.assertNotRegex(result.stderr, re.compile("Run with --help", re.IGNORECASE))


if __name__ == "__main__":
    unittest.main(verbosity=2)
