"""bkctl alloc: allocation, pattern check, bk.alloc/v1 JSON and every way the input can be wrong."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bkctl_cli import CliTestCase, run  # noqa: E402

MiB = 1 << 20


class AllocWorks(CliTestCase):
    def test_cpu_64mib_table(self):
        result = run("alloc", "--device", "cpu", "--size", "64MiB")  # device names ignore case
        self.assertOk(result)
        self.assertEqual(result.stderr, "", "no progress noise when stderr is not a terminal")
        lines = result.stdout.splitlines()
        self.assertTrue(lines[0].startswith("CPU ("), lines[0])
        self.assertIn("1 x 64.0 MiB", lines[0])
        header = next(line for line in lines if line.startswith("buffer"))
        for column in ("size", "alloc ms", "write GB/s", "read GB/s", "verified"):
            self.assertIn(column, header)
        rows = [line for line in lines if line.lstrip().startswith("0 ")]
        self.assertEqual(len(rows), 1, result.stdout)
        self.assertRegex(rows[0], r"64\.0 MiB\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+ok$")

    def test_json_validates_and_reports_every_buffer(self):
        result = run("alloc", "-d", "CPU", "-s", "1MiB", "--count", "3", "--json")
        document = self.assertJsonOutput(result, "bk.alloc.v1.json")
        self.assertEqual(document["device"]["name"], "CPU")
        self.assertEqual(document["size"], MiB)
        self.assertEqual(document["count"], 3)
        self.assertEqual([b["index"] for b in document["buffers"]], [0, 1, 2])
        for buffer in document["buffers"]:
            self.assertEqual(buffer["bytes"], MiB)
            self.assertTrue(buffer["verified"])
            self.assertEqual(buffer["mismatches"], 0)
            self.assertIsNone(buffer["first_mismatch_offset"])
        self.assertEqual(document["total"]["bytes"], 3 * MiB)
        self.assertAlmostEqual(document["total"]["write_seconds"],
                               sum(b["write_seconds"] for b in document["buffers"]), places=9)
        self.assertTrue(document["ok"])

    def test_sizes_people_write(self):
        for text, expected in [("4096", 4096), ("4097", 4097), ("1.5K", 1536), ("2KiB", 2048), ("1MB", 10**6),
                               ("0.5M", MiB // 2), ("3 MiB", 3 * MiB)]:
            with self.subTest(size=text):
                document = self.assertJsonOutput(run("alloc", "--device", "CPU", "--size", text, "--json"),
                                                 "bk.alloc.v1.json")
                self.assertEqual(document["size"], expected)
                self.assertEqual(document["buffers"][0]["bytes"], expected)
                self.assertTrue(document["ok"])

    def test_total_row_for_several_buffers(self):
        result = run("alloc", "--device", "CPU", "--size", "2MiB", "-n", "2")
        self.assertOk(result)
        self.assertRegex(result.stdout, r"(?m)^\s*total\s+4\.00 MiB\s.*ok$")


class AllocBadInput(CliTestCase):
    def test_bad_sizes_are_usage_errors(self):
        for size in ["abc", "-1", "1.5.5", "12XB", "", "0", "1.5", "1e3", "0x10", "5 bits"]:
            with self.subTest(size=size):
                line = self.assertOneLineError(run("alloc", "--device", "CPU", "--size", size), 2)
                self.assertIn(f"'{size}'", line, "the message names the bad value")
        line = self.assertOneLineError(run("alloc", "--device", "CPU", "--size", "abc"), 2)
        for example in ("4096", "64MiB", "2GiB", "1.5G"):
            self.assertIn(example, line)

    def test_negative_size_in_equals_form(self):
        self.assertOneLineError(run("alloc", "--device", "CPU", "--size=-1"), 2, "'-1'")

    def test_bad_counts_are_usage_errors(self):
        for count in ["0", "-3", "abc", "2.5"]:
            with self.subTest(count=count):
                self.assertOneLineError(run("alloc", "--device", "CPU", "--size", "1MiB", f"--count={count}"), 2,
                                        "--count")

    def test_missing_options_are_usage_errors(self):
        self.assertOneLineError(run("alloc", "--size", "1MiB"), 2, "--device", "bkctl alloc --help")
        self.assertOneLineError(run("alloc", "--device", "CPU"), 2, "--size")

    def test_unknown_device_lists_the_devices(self):
        line = self.assertOneLineError(run("alloc", "--device", "NoSuchGPU7", "--size", "1MiB"), 3, "NoSuchGPU7")
        self.assertIn("CPU", line.split("NoSuchGPU7", 1)[1], "the devices that exist are listed")

    def test_more_than_the_device_has_is_out_of_memory(self):
        line = self.assertOneLineError(run("alloc", "--device", "CPU", "--size", "1000TiB"), 4, "CPU", "--size")
        self.assertIn("1000 TiB", line)
        self.assertIn("free", line)

    def test_count_times_size_is_checked_without_overflow(self):
        self.assertOneLineError(run("alloc", "--device", "CPU", "--size", "1000TiB", "--count", "100000"), 4,
                                "--count")


if __name__ == "__main__":
    unittest.main(verbosity=2)
