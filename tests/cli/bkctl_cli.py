"""Shared helpers for the bkctl CLI tests: run bkctl as a process and check its contracts.

ctest passes BKCTL (the binary), BK_SCHEMA_DIR (the repository's schemas/) and BK_VERSION.
"""

import json
import os
import subprocess
import unittest

import jsonschema


def _required_env(name):
    value = os.environ.get(name)
    if not value:
        raise SystemExit(f"{name} is not set; run these tests through ctest (see tests/cli/CMakeLists.txt)")
    return value


BKCTL = _required_env("BKCTL")
SCHEMA_DIR = _required_env("BK_SCHEMA_DIR")
VERSION = os.environ.get("BK_VERSION", "")

# For runs that compute on Vulkan. lavapipe JITs shaders on threads of its own; under ASan the slow
# unwinder that the driver's leak suppressions need (fast_unwind_on_malloc=0, tests/devices_vulkan/
# lsan.supp) deadlocks there (malloc's stack trace takes the unwinder's lock again, inside LLVM's
# EH-frame registration), so these runs check no leaks and unwind fast. Elsewhere it changes nothing.
FAST_ASAN = {"LSAN_OPTIONS": "detect_leaks=0:fast_unwind_on_malloc=1"}


def run(*args, env=None):
    """Runs bkctl with args; returns the CompletedProcess with text stdout/stderr."""
    full_env = dict(os.environ)
    full_env.pop("NO_COLOR", None)
    full_env.pop("COLUMNS", None)  # not a terminal: 80 columns, unless a test says otherwise
    if env:
        full_env.update(env)
    return subprocess.run([BKCTL, *args], capture_output=True, text=True, env=full_env, timeout=240, check=False)


def schema_path(file_name):
    return os.path.join(SCHEMA_DIR, file_name)


def load_schema(file_name):
    with open(schema_path(file_name), encoding="utf-8") as f:
        return json.load(f)


def validate(document, file_name, schema=None):
    """Validates against schemas/FILE_NAME, or against `schema` (a part of one) when given."""
    schema = schema if schema is not None else load_schema(file_name)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(document)


class CliTestCase(unittest.TestCase):
    def assertOk(self, result):
        self.assertEqual(result.returncode, 0, f"stderr: {result.stderr!r}")

    def assertJsonOutput(self, result, schema_file):
        """Checks a successful --json run and returns the parsed document."""
        self.assertOk(result)
        document = json.loads(result.stdout)
        schema_id = load_schema(schema_file)["properties"]["schema"]["const"]
        self.assertTrue(result.stdout.startswith('{\n  "schema": "' + schema_id + '"'),
                        "the schema field comes first, with two-space indentation")
        validate(document, schema_file)
        return document

    def assertOneLineError(self, result, exit_code, *needles):
        """A failed run: the exit code, nothing on stdout, exactly one 'bkctl: ' line on stderr."""
        self.assertEqual(result.returncode, exit_code, f"stdout: {result.stdout!r} stderr: {result.stderr!r}")
        self.assertEqual(result.stdout, "", "errors print nothing on stdout")
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, f"exactly one line on stderr, got {result.stderr!r}")
        self.assertTrue(lines[0].startswith("bkctl: "), lines[0])
        for needle in needles:
            self.assertIn(needle, lines[0])
        return lines[0]
