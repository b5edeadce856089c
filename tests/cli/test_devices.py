"""bkctl devices: the table, the verbose report and bk.devices/v1 JSON."""

import os
import pty
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bkctl_cli import BKCTL, CliTestCase, VERSION, run  # noqa: E402


def proc_model_name():
    """The first "model name" in /proc/cpuinfo, whitespace-normalised; None where there is none."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, sep, value = line.partition(":")
                if sep and key.strip() == "model name" and value.strip():
                    return " ".join(value.split())
    except OSError:
        pass
    return None


def mem_total_bytes():
    with open("/proc/meminfo", encoding="ascii") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no MemTotal in /proc/meminfo")


def run_on_terminal(*args, env=None):
    """Runs bkctl with stdout on a pseudo-terminal; returns (exit code, what it printed)."""
    leader, follower = pty.openpty()
    full_env = dict(os.environ)
    full_env.pop("NO_COLOR", None)
    full_env.update(env or {})
    process = subprocess.Popen([BKCTL, *args], stdout=follower, stderr=subprocess.DEVNULL, env=full_env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return process.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


class DevicesJson(CliTestCase):
    @classmethod
    def setUpClass(cls):
        cls.result = run("devices", "--json")

    def test_validates_against_the_schema(self):
        self.assertJsonOutput(self.result, "bk.devices.v1.json")

    def test_lists_the_cpu_with_real_memory(self):
        document = self.assertJsonOutput(self.result, "bk.devices.v1.json")
        cpus = [d for d in document["devices"] if d["name"] == "CPU"]
        self.assertEqual(len(cpus), 1, document["devices"])
        cpu = cpus[0]
        self.assertEqual(cpu["type"], "cpu")
        self.assertEqual(cpu["reg"], "CPU")
        self.assertGreater(cpu["memory"]["free"], 0)
        self.assertLessEqual(cpu["memory"]["free"], cpu["memory"]["total"])
        self.assertAlmostEqual(cpu["memory"]["total"], mem_total_bytes(), delta=mem_total_bytes() * 0.01)
        model = proc_model_name()
        if model is not None:
            self.assertEqual(" ".join(cpu["description"].split()), model)

    def test_the_cpu_uses_the_cores_it_is_bound_to(self):
        # A backend's threads are the physical cores in the process's binding (all of them unless
        # this test runs bound); bound to one hardware thread (as taskset or mpirun's --bind-to
        # core does), one.
        details = self.cpu_details(self.result)
        self.assertGreaterEqual(details["topology"]["bound_cores"], 1)
        self.assertLessEqual(details["topology"]["bound_cores"], details["topology"]["cores"])
        self.assertEqual(details["default_threads"], details["topology"]["bound_cores"])
        first = min(os.sched_getaffinity(0))
        bound = subprocess.run([BKCTL, "devices", "--json"], capture_output=True, text=True, timeout=240,
                               check=False, preexec_fn=lambda: os.sched_setaffinity(0, {first}))
        details = self.cpu_details(bound)
        self.assertEqual(details["topology"]["bound_cores"], 1)
        self.assertEqual(details["default_threads"], 1)

    def cpu_details(self, result):
        document = self.assertJsonOutput(result, "bk.devices.v1.json")
        return next(d for d in document["devices"] if d["name"] == "CPU")["details"]

    def test_indices_names_and_backends_are_consistent(self):
        document = self.assertJsonOutput(self.result, "bk.devices.v1.json")
        devices = document["devices"]
        self.assertEqual([d["index"] for d in devices], list(range(len(devices))))
        names = [d["name"].lower() for d in devices]
        self.assertEqual(len(names), len(set(names)), "device names are unique ignoring case")
        counts = {b["name"]: b["device_count"] for b in document["backends"]}
        for backend, count in counts.items():
            self.assertEqual(count, sum(1 for d in devices if d["reg"] == backend), backend)
        self.assertIn("CPU", counts)

    def test_version_matches_bkctl_version(self):
        document = self.assertJsonOutput(self.result, "bk.devices.v1.json")
        first_line = run("--version").stdout.splitlines()[0]
        self.assertEqual(first_line, "bkctl " + document["bkctl_version"])
        if VERSION:
            self.assertEqual(document["bkctl_version"], VERSION)

    def test_verbose_does_not_change_the_json(self):
        plain = self.assertJsonOutput(self.result, "bk.devices.v1.json")
        verbose = self.assertJsonOutput(run("devices", "--json", "--verbose"), "bk.devices.v1.json")
        # Compare shape, not values: free memory moves between runs.
        shape = lambda doc: [(d["name"], sorted(d), sorted(d["details"])) for d in doc["devices"]]
        self.assertEqual(shape(verbose), shape(plain))


class DevicesTable(CliTestCase):
    def test_lists_the_cpu_with_its_model_name_and_memory(self):
        result = run("devices")
        self.assertOk(result)
        self.assertEqual(result.stderr, "")
        lines = result.stdout.splitlines()
        self.assertRegex(lines[0], r"^#\s+name\s+type\s+description\s+memory free / total\s+caps$")
        self.assertRegex(lines[1], r"^[- ]+$")
        cpu_rows = [i for i, line in enumerate(lines) if i >= 2 and re.match(r"^\s*\d+\s+CPU\s", line)]
        self.assertEqual(len(cpu_rows), 1, result.stdout)
        self.assertRegex(lines[cpu_rows[0]], r"\d+\.\d / \d+\.\d GiB")
        model = proc_model_name()
        if model is not None:
            # A long brand string wraps inside its column onto the lines below the row.
            start, end = [m.span() for m in re.finditer(r"-+", lines[1])][3]
            row = [lines[cpu_rows[0]]]
            for line in lines[cpu_rows[0] + 1:]:
                if not line.strip() or line[:start].strip():
                    break
                row.append(line)
            description = " ".join(line[start:end].strip() for line in row)
            self.assertIn(model, " ".join(description.split()))

    def test_columns_are_aligned(self):
        lines = run("devices").stdout.splitlines()
        underline = lines[1]
        starts = [m.start() for m in re.finditer(r"-+", underline)]
        header = lines[0]
        for column, start in zip(["#", "name", "type", "description"], starts):
            self.assertEqual(header.index(column, start), start, f"{column!r} starts its column")

    def test_piped_output_has_no_escape_codes(self):
        self.assertNotIn("\x1b", run("devices", "--verbose").stdout)

    def test_terminal_gets_colour_unless_no_color(self):
        code, text = run_on_terminal("devices")
        self.assertEqual(code, 0)
        self.assertIn("\x1b[", text)
        code, text = run_on_terminal("devices", env={"NO_COLOR": "1"})
        self.assertEqual(code, 0)
        self.assertNotIn("\x1b", text)
        self.assertIn("CPU", text)


class DevicesVerbose(CliTestCase):
    def test_shows_every_detail_key_backends_and_plugins(self):
        result = run("devices", "--verbose")
        self.assertOk(result)
        document = self.assertJsonOutput(run("devices", "--json"), "bk.devices.v1.json")
        text = result.stdout
        for device in document["devices"]:
            self.assertIn(f"{device['name']}: {device['description']}", text)
            for key in device["details"]:
                self.assertRegex(text, rf"(?m)^\s+{re.escape(key)}:", f"detail {key!r} of {device['name']}")
        self.assertRegex(text, r"(?m)^backend\s+devices\s+status$")
        for backend in document["backends"]:
            self.assertRegex(text, rf"(?m)^{re.escape(backend['name'])}\s+{backend['device_count']}\b")
        for plugin in document["plugins"]:
            self.assertRegex(text, rf"(?m)^{re.escape(plugin['name'])}\s+{plugin['status']}\b")

    def test_unknown_flag_is_a_usage_error(self):
        self.assertOneLineError(run("devices", "--frobnicate"), 2, "--frobnicate", "bkctl devices --help")


class NullDevices(CliTestCase):
    """The null device kind (lib/devices/null): its plugin always loads, its devices exist only
    when BK_NULL_DEVICES asks for them."""

    def test_bk_null_devices_lists_null0(self):
        result = run("devices", env={"BK_NULL_DEVICES": "1"})
        self.assertOk(result)
        rows = [line for line in result.stdout.splitlines()[2:] if re.match(r"^\s*\d+\s+Null0\s", line)]
        self.assertEqual(len(rows), 1, result.stdout)
        self.assertRegex(rows[0], r"\baccel\b")
        self.assertNotRegex(result.stdout, r"(?m)^\s*\d+\s+Null1\s")
        document = self.assertJsonOutput(run("devices", "--json", env={"BK_NULL_DEVICES": "1"}),
                                         "bk.devices.v1.json")
        nulls = [d for d in document["devices"] if d["reg"] == "Null"]
        self.assertEqual([d["name"] for d in nulls], ["Null0"])
        self.assertEqual(nulls[0]["type"], "accel")
        self.assertTrue(nulls[0]["caps"]["events"])

    def test_default_lists_the_plugin_but_no_null_device(self):
        document = self.assertJsonOutput(run("devices", "--json", env={"BK_NULL_DEVICES": ""}),
                                         "bk.devices.v1.json")
        self.assertEqual([d["name"] for d in document["devices"] if d["reg"] == "Null"], [])
        backends = {b["name"]: b for b in document["backends"]}
        self.assertEqual(backends["Null"]["device_count"], 0)
        self.assertIn("BK_NULL_DEVICES", backends["Null"]["status"])
        plugins = {p["name"]: p["status"] for p in document["plugins"]}
        self.assertEqual(plugins.get("null"), "loaded")

    def test_malformed_count_fails_the_plugin_only(self):
        document = self.assertJsonOutput(run("devices", "--json", env={"BK_NULL_DEVICES": "lots"}),
                                         "bk.devices.v1.json")
        null = [p for p in document["plugins"] if p["name"] == "null"][0]
        self.assertEqual(null["status"], "failed")
        self.assertIn("'lots'", null["reason"])
        self.assertIn("CPU", [d["name"] for d in document["devices"]])


if __name__ == "__main__":
    unittest.main(verbosity=2)
