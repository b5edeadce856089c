"""bkctl schema: the embedded schemas are the files in schemas/, byte for byte."""

import json
import os
import re
import sys
import unittest

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bkctl_cli import SCHEMA_DIR, CliTestCase, run  # noqa: E402

FILE_NAME = re.compile(r"^bk\.([a-z0-9_]+)\.v(\d+)\.json$")


def schema_files():
    files = sorted(name for name in os.listdir(SCHEMA_DIR) if name.endswith(".json"))
    assert files, f"no schemas in {SCHEMA_DIR}"
    return files


class SchemaFiles(unittest.TestCase):
    def test_every_file_is_a_valid_schema_named_after_its_id(self):
        for name in schema_files():
            with self.subTest(file=name):
                match = FILE_NAME.match(name)
                self.assertIsNotNone(match, "schema files are named bk.<name>.v<N>.json")
                with open(os.path.join(SCHEMA_DIR, name), encoding="utf-8") as f:
                    schema = json.load(f)
                jsonschema.Draft202012Validator.check_schema(schema)
                self.assertEqual(schema["properties"]["schema"]["const"], f"bk.{match[1]}/v{match[2]}")
                self.assertIn("schema", schema["required"])
                self.assertFalse(schema["additionalProperties"])


class SchemaCommand(CliTestCase):
    def test_prints_each_file_exactly_by_name_id_and_file_name(self):
        for name in schema_files():
            match = FILE_NAME.match(name)
            with open(os.path.join(SCHEMA_DIR, name), encoding="utf-8") as f:
                text = f.read()
            for query in (match[1], f"bk.{match[1]}/v{match[2]}", name):
                with self.subTest(query=query):
                    result = run("schema", query)
                    self.assertOk(result)
                    self.assertEqual(result.stdout, text)

    def test_list_names_every_schema(self):
        result = run("schema", "--list")
        self.assertOk(result)
        for name in schema_files():
            match = FILE_NAME.match(name)
            self.assertRegex(result.stdout, rf"(?m)^{match[1]}\s+bk\.{match[1]}/v{match[2]}\s")

    def test_unknown_schema_is_a_usage_error_listing_the_known_ones(self):
        self.assertOneLineError(run("schema", "nope"), 2, "'nope'", "devices", "alloc")

    def test_no_name_is_a_usage_error(self):
        self.assertOneLineError(run("schema"), 2, "devices", "--list")
        self.assertOneLineError(run("schema", "--list", "devices"), 2, "--list")


if __name__ == "__main__":
    unittest.main(verbosity=2)
