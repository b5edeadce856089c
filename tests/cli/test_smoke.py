"""bkctl smoke: checks per level on the real devices, every injected fault caught with the right status
and exit code, the watchdog cutting off a hang, requirements, floors, --fail-on, JSON and JUnit outputs."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bkctl_cli import BKCTL, FAST_ASAN, CliTestCase, run, validate  # noqa: E402

XSD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "junit-10.xsd")
LEVEL1 = ["enumerate", "memory", "roundtrip", "compute", "events"]
LEVEL2 = LEVEL1 + ["conformance", "matmul"]


def sim(config):
    return {"BK_SIM_DEVICES": config, **FAST_ASAN}


def smoke(*args, env=None, mem="8MiB"):
    return run("smoke", "--mem", mem, *args, env=env)


def smoke_json(test, *args, env=None, exit_code=0, mem="8MiB"):
    result = smoke("--json", *args, env=env, mem=mem)
    test.assertEqual(result.returncode, exit_code, f"stdout: {result.stdout[-3000:]!r} stderr: {result.stderr!r}")
    document = json.loads(result.stdout)
    validate(document, "bk.smoke.v2.json")
    test.assertEqual(document["exit_code"], exit_code)
    return document


def check(document, device, name):
    matches = [c for c in document["checks"] if c["device"] == device and c["check"] == name]
    assert len(matches) == 1, f"{device} {name}: {document['checks']}"
    return matches[0]


class ReportPath:
    """A path in a temporary directory of its own, removed after the test."""

    def __init__(self, test, name):
        self.test = test
        self.dir = tempfile.mkdtemp(prefix="bk-smoke-")
        self.path = os.path.join(self.dir, name)
        test.addCleanup(shutil.rmtree, self.dir)


class JUnitFile(ReportPath):
    """A temporary path for --junit, validated with xmllint against the vendored XSD."""

    def __init__(self, test):
        super().__init__(test, "smoke.xml")

    def validated(self):
        if shutil.which("xmllint") is None:
            self.test.fail("xmllint is missing: install libxml2-utils (scripts/bootstrap.sh lists it)")
        lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, self.path], capture_output=True, text=True,
                              check=False)
        self.test.assertEqual(lint.returncode, 0, lint.stderr)
        return ET.parse(self.path).getroot()


def testcase(root, device, name):
    for suite in root.iter("testsuite"):
        if suite.get("name") == device:
            for case in suite.iter("testcase"):
                if case.get("name") == name:
                    return case
    raise AssertionError(f"no testcase {device}/{name}")


class RealDevices(CliTestCase):
    def test_level2_passes_on_every_device_with_valid_junit(self):
        junit = JUnitFile(self)
        result = smoke("--level", "2", "--junit", junit.path, env=FAST_ASAN)
        self.assertOk(result)
        root = junit.validated()
        suites = [s for s in root.iter("testsuite")]
        names = [s.get("name") for s in suites]
        self.assertIn("CPU", names)
        for suite in suites:
            self.assertEqual([c.get("name") for c in suite.iter("testcase")], LEVEL2)
            self.assertEqual(suite.get("failures"), "0")
            self.assertEqual(suite.get("errors"), "0")
        self.assertEqual(root.get("tests"), str(len(LEVEL2) * len(suites)))
        # Byte counts in full, as a person compares them with nvidia-smi: never "2.52762e+10".
        total = testcase(root, "CPU", "enumerate").find("system-out").text
        self.assertRegex(total, r"memory_total_bytes=[0-9]{7,}( |$)")
        # The human summary: one line per device x check, then the verdict.
        lines = result.stdout.splitlines()
        for name in names:
            for check_name in LEVEL2:
                self.assertTrue(any(line.split()[:2] == [name, check_name] for line in lines if line.strip()),
                                f"{name} {check_name} in {result.stdout}")
        self.assertTrue(lines[-1].startswith("PASS: "), lines[-1])
        # Not a terminal (a CI log): one progress line per finished check on stderr.
        for name in names:
            for check_name in LEVEL2:
                self.assertRegex(result.stderr, rf"(?m)^bkctl: smoke: {name} {check_name} (PASS|N/A) \(\d")
        # The CPU has no events by design: n/a with a reason, a JUnit skip of its own type.
        events = testcase(root, "CPU", "events").find("skipped")
        self.assertIsNotNone(events)
        self.assertEqual(events.get("type"), "n/a")
        self.assertIn("events", events.get("message"))

    def test_json_level1_validates_and_is_complete(self):
        document = smoke_json(self, "--device", "CPU")
        self.assertEqual([c["check"] for c in document["checks"]], LEVEL1)
        self.assertEqual(document["devices"][0]["name"], "CPU")
        self.assertFalse(document["devices"][0]["simulated"])
        memory = check(document, "CPU", "memory")
        self.assertEqual(memory["status"], "pass")
        self.assertEqual(memory["metrics"]["bytes"], 8 << 20)
        self.assertEqual(memory["metrics"]["mismatched_words"], 0)
        self.assertEqual(check(document, "CPU", "events")["status"], "n/a")
        self.assertEqual(document["verdict"], "pass")
        self.assertEqual(document["counts"], {"pass": 4, "fail": 0, "skipped": 0, "error": 0, "n/a": 1})

    def test_fail_on_skipped_passes_where_a_check_does_not_apply(self):
        # The nightly policy: a CPU has no events by design, which is n/a, not a skip.
        document = smoke_json(self, "--device", "CPU", "--fail-on", "fail,error,skipped")
        self.assertEqual(document["verdict"], "pass")
        self.assertEqual(document["fail_on"], ["fail", "error", "skipped"])
        # Asking for every check to apply does fail it, with the check's reason in the report.
        document = smoke_json(self, "--device", "CPU", "--fail-on", "n/a", exit_code=1)
        self.assertEqual(document["verdict"], "fail")
        self.assertEqual(check(document, "CPU", "events")["status"], "n/a")

    def test_level3_burnin_checks_every_result_and_records_a_timeline(self):
        # Other tests share the cores (ctest -j): a drop from their load is not what this test is about.
        document = smoke_json(self, "--level", "3", "--device", "CPU", "--duration", "2s", "--max-drop", "100%")
        sustained = check(document, "CPU", "sustained")
        self.assertEqual(sustained["status"], "pass", sustained)
        metrics = sustained["metrics"]
        self.assertGreaterEqual(metrics["samples"], 1)
        self.assertEqual(metrics["wrong_results"], 0)
        self.assertLessEqual(metrics["min_gflops"], metrics["median_gflops"])
        self.assertLessEqual(metrics["median_gflops"], metrics["max_gflops"])
        self.assertGreaterEqual(metrics["cv"], 0)
        self.assertGreaterEqual(metrics["matrix_size"], 256)
        self.assertEqual(metrics["memory_filled_bytes"], 8 << 20, "--mem 8MiB, held through the run")
        self.assertEqual(metrics["memory_mismatched_words"], 0)
        self.assertGreater(metrics["process_cpu_cores_busy"], 0)
        self.assertGreaterEqual(sustained["seconds"], 2.0)
        self.assertEqual(document["duration_seconds"], 2.0)
        self.assertEqual(document["max_drop"], 1.0)
        # A window about every second, in order, each run in one of them, all checked.
        timeline = sustained["timeline"]
        self.assertGreaterEqual(len(timeline), 2)
        self.assertEqual([w["t"] for w in timeline], sorted(w["t"] for w in timeline))
        self.assertEqual(sum(w["runs"] for w in timeline), metrics["samples"])
        self.assertTrue(all(w["wrong"] == 0 for w in timeline))
        self.assertTrue(all(w["cores_busy"] > 0 for w in timeline), timeline)
        # x86 Linux reports the CPU clock; other checks have no timeline.
        self.assertIn("cpu_mhz", timeline[-1]["telemetry"])
        self.assertNotIn("timeline", check(document, "CPU", "matmul"))

    def test_the_burnin_reports_progress_on_stderr(self):
        # Not a terminal (a CI log): progress lines still come every 5 s.
        result = smoke("--level", "3", "--device", "CPU", "--duration", "6s", "--max-drop", "100%")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(re.findall(r"bkctl: CPU: sustained (\d+)/6 s: [\d.]+ GFLOP/s, 0 wrong", result.stderr), ["5"],
                         result.stderr)
        self.assertIn("bkctl: smoke: CPU sustained PASS", result.stderr)

    def test_a_drop_from_other_load_on_the_host_is_named_as_such(self):
        # Once the first progress line is out (5 s), two busy processes per core take most of the
        # CPU from the burn-in (more than another test's load at its start can have taken): the
        # throughput falls with the process's CPU share, and the report says so.
        command = [BKCTL, "smoke", "--level", "3", "--device", "CPU", "--mem", "8MiB", "--duration", "12s", "--json"]
        burn = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, **FAST_ASAN))
        hogs = []
        try:
            for line in burn.stderr:
                if "sustained 5/12 s" in line:
                    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                            for _ in range(2 * len(os.sched_getaffinity(0)))]
                    break
            stdout, _ = burn.communicate(timeout=120)
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()
        self.assertTrue(hogs, "no progress line at 5 s")
        self.assertEqual(burn.returncode, 1)
        document = json.loads(stdout)
        validate(document, "bk.smoke.v2.json")
        sustained = check(document, "CPU", "sustained")
        self.assertEqual(sustained["status"], "fail")
        self.assertIn("other load on the host", sustained["message"])
        self.assertNotIn("throttling", sustained["message"])
        late = [w["cores_busy"] for w in sustained["timeline"] if w["t"] > 7]
        early = [w["cores_busy"] for w in sustained["timeline"] if w["t"] < 4]
        self.assertLess(max(late), max(early), sustained["timeline"])

    def test_level3_runs_every_device_at_once(self):
        # Levels 1 and 2: simulated GPUs side by side, host devices (type cpu) one after another.
        # Level 3, the burn-in: every device at once, host devices too, to load the whole node.
        for kind, parallel in (("gpu", True), ("cpu", False)):
            with self.subTest(kind=kind):
                env = sim(f"g0:type={kind},mem=64MiB,slow=100;g1:type={kind},mem=64MiB,slow=100")
                document = smoke_json(self, "--level", "2", "--device", "g0,g1", env=env)
                self.assertEqual([d["name"] for d in document["devices"]], ["g0", "g1"])
                self.assertEqual([c["device"] for c in document["checks"]],
                                 ["g0"] * 7 + ["g1"] * 7, "the report keeps the devices' order")
                checked = sum(c["seconds"] for c in document["checks"])
                self.assertGreaterEqual(checked, 0.8, "slow=100 makes the matmul checks take time")
                if parallel:
                    self.assertLess(document["wall_seconds"], 0.75 * checked, document["wall_seconds"])
                else:
                    self.assertGreaterEqual(document["wall_seconds"], 0.95 * checked)
        env = sim("g0:type=cpu,mem=64MiB;g1:type=cpu,mem=64MiB")
        document = smoke_json(self, "--level", "3", "--device", "g0,g1", "--duration", "3s", "--max-drop", "100%",
                              env=env)
        burns = [check(document, name, "sustained") for name in ("g0", "g1")]
        self.assertTrue(all(b["status"] == "pass" for b in burns), burns)
        levels12 = sum(c["seconds"] for c in document["checks"] if c["level"] < 3)
        self.assertLess(document["wall_seconds"] - levels12, 0.75 * sum(b["seconds"] for b in burns),
                        "the two burn-ins overlap")

    def test_a_share_of_free_memory_is_filled_and_split_among_host_devices(self):
        document = smoke_json(self, "--level", "3", "--device", "g0", "--duration", "1s", "--max-drop", "100%",
                              mem="50%", env=sim("g0:mem=256MiB"))
        self.assertEqual(document["memory_share"], 0.5)
        self.assertEqual(check(document, "g0", "memory")["metrics"]["bytes"], 128 << 20)
        self.assertEqual(check(document, "g0", "sustained")["metrics"]["memory_filled_bytes"], 128 << 20)
        # Two devices in host memory burn in at once: each fills a quarter of its free memory.
        document = smoke_json(self, "--level", "3", "--device", "g0,g1", "--duration", "1s", "--max-drop", "100%",
                              mem="50%", env=sim("g0:type=cpu,mem=256MiB;g1:type=cpu,mem=256MiB"))
        for name in ("g0", "g1"):
            self.assertEqual(check(document, name, "memory")["metrics"]["bytes"], 128 << 20, "levels 1-2: alone")
            self.assertEqual(check(document, name, "sustained")["metrics"]["memory_filled_bytes"], 64 << 20)
        for bad in ("0%", "150%", "lots"):
            result = smoke(mem=bad)
            self.assertEqual(result.returncode, 2, bad)
            self.assertIn("--mem", result.stderr)


class Faults(CliTestCase):
    """Each fault the simulated device injects is caught, with the status and exit code it deserves."""

    def faulty(self, fault, *args, level="2", extra="", exit_code):
        return smoke_json(self, "--level", level, "--device", "sim0", "--timeout", "2s", *args,
                          env=sim(f"sim0:fault={fault},mem=64MiB{extra}"), exit_code=exit_code)

    def test_corrupt_byte_fails_the_memory_check(self):
        document = self.faulty("corrupt_byte", exit_code=1)
        memory = check(document, "sim0", "memory")
        self.assertEqual(memory["status"], "fail")
        self.assertEqual(memory["metrics"]["mismatched_words"], 3, "one word per pattern")
        self.assertIn("byte offset 4194304", memory["message"], "the middle of the 8 MiB buffer")
        self.assertEqual(check(document, "sim0", "enumerate")["status"], "pass")
        self.assertTrue(document["devices"][0]["simulated"])
        self.assertIn("simulated", document["devices"][0]["description"])

    def test_wrong_results_fail_the_compute_checks(self):
        document = self.faulty("wrong_results", exit_code=1)
        for name in ("compute", "events", "conformance", "matmul"):
            self.assertEqual(check(document, "sim0", name)["status"], "fail", name)
        self.assertEqual(check(document, "sim0", "memory")["status"], "pass", "memory itself is fine")
        self.assertIn("float64 reference", check(document, "sim0", "conformance")["message"])

    def test_wrong_results_fail_the_sustained_check(self):
        document = self.faulty("wrong_results", "--duration", "0.3s", level="3", exit_code=1)
        sustained = check(document, "sim0", "sustained")
        self.assertEqual(sustained["status"], "fail")
        self.assertEqual(sustained["metrics"]["wrong_results"], sustained["metrics"]["samples"])

    def test_the_burnin_catches_wrong_results_that_begin_mid_run(self):
        # Results go wrong 3 s after the burn-in stream's first compute, in a 6 s run.
        document = self.faulty("wrong_results", "--duration", "6s", "--max-drop", "100%", level="3",
                               extra=",onset=3s", exit_code=1)
        self.assertEqual(check(document, "sim0", "matmul")["status"], "pass", "levels 1-2 ran before the onset")
        sustained = check(document, "sim0", "sustained")
        self.assertEqual(sustained["status"], "fail")
        self.assertIn("results wrong, the first at", sustained["message"])
        wrong = [w["wrong"] for w in sustained["timeline"]]
        self.assertEqual(wrong[0], 0, wrong)
        self.assertGreater(wrong[-1], 0, wrong)
        self.assertLess(sustained["metrics"]["wrong_results"], sustained["metrics"]["samples"])
        self.assertEqual(sum(wrong), sustained["metrics"]["wrong_results"])

    def test_the_burnin_catches_a_throughput_drop(self):
        # From 3 s on the device runs 4 times slower: throttling, as the burn-in sees it.
        document = self.faulty("none", "--duration", "7s", level="3", extra=",slow=4,onset=3s", exit_code=1)
        sustained = check(document, "sim0", "sustained")
        self.assertEqual(sustained["status"], "fail", sustained["message"])
        self.assertIn("below its start", sustained["message"])
        self.assertIn("--max-drop 10%", sustained["message"], "the default")
        self.assertEqual(document["max_drop"], 0.1)
        self.assertIn("(throttling?)", sustained["message"], "the simulated GPU kept its CPU share")
        self.assertGreater(sustained["metrics"]["throughput_drop"], 0.5)
        self.assertEqual(sustained["metrics"]["wrong_results"], 0)

    def test_the_burnin_verifies_its_memory_fill(self):
        document = self.faulty("corrupt_byte", "--duration", "0.5s", level="3", exit_code=1)
        sustained = check(document, "sim0", "sustained")
        self.assertEqual(sustained["status"], "fail")
        self.assertIn("memory as filled: random", sustained["message"])
        self.assertGreater(sustained["metrics"]["memory_mismatched_words"], 0)

    def test_alloc_fail_is_out_of_memory(self):
        junit = JUnitFile(self)
        document = self.faulty("alloc_fail", "--junit", junit.path, exit_code=4)
        memory = check(document, "sim0", "memory")
        self.assertEqual(memory["status"], "error")
        self.assertFalse(memory["timed_out"])
        self.assertIn("out_of_memory", memory["message"])
        error = testcase(junit.validated(), "sim0", "memory").find("error")
        self.assertEqual(error.get("type"), "error")

    def test_an_allocation_failure_beside_another_error_is_a_device_error(self):
        document = smoke_json(self, "--device", "sim0,sim1", "--timeout", "2s",
                              env=sim("sim0:fault=alloc_fail,mem=64MiB;sim1:fault=hang,mem=64MiB"), exit_code=5)
        self.assertEqual(check(document, "sim0", "memory")["status"], "error")
        self.assertTrue(check(document, "sim1", "compute")["timed_out"])

    def assert_hang_cut_off(self, extra):
        junit = JUnitFile(self)
        started = time.monotonic()
        result = smoke("--level", "2", "--device", "sim0", "--timeout", "2s", "--json", "--junit", junit.path,
                       env=sim(f"sim0:fault=hang,mem=64MiB{extra}"))
        elapsed = time.monotonic() - started
        self.assertEqual(result.returncode, 5, result.stderr)
        # One check hangs (2 s), the rest take well under a second; 10 s leaves room for ASan.
        self.assertLess(elapsed, 2 + 10, "the watchdog bounds the run")
        document = json.loads(result.stdout)
        validate(document, "bk.smoke.v2.json")
        hung = check(document, "sim0", "compute")
        self.assertEqual(hung["status"], "error")
        self.assertTrue(hung["timed_out"])
        self.assertGreaterEqual(hung["seconds"], 2.0)
        self.assertIn("timed out after 2 s", hung["message"])
        for name in ("events", "conformance", "matmul"):
            later = check(document, "sim0", name)
            self.assertEqual(later["status"], "skipped")
            self.assertIn("hung", later["message"])
        error = testcase(junit.validated(), "sim0", "compute").find("error")
        self.assertEqual(error.get("type"), "timeout")
        self.assertIn("errored or timed out", result.stderr)

    def test_hang_in_compute_is_cut_off_by_the_timeout(self):
        self.assert_hang_cut_off("")

    def test_hang_in_synchronize_is_cut_off_by_the_timeout(self):
        self.assert_hang_cut_off(",async=yes")

    def test_a_device_without_events_still_computes_at_level_1(self):
        # Without events the events check is n/a; after a hang it is skipped (it was not run).
        for fault, exit_code, status, events in (("wrong_results", 1, "fail", "n/a"),
                                                 ("hang", 5, "error", "skipped")):
            with self.subTest(fault=fault):
                document = self.faulty(fault, level="1", extra=",events=no", exit_code=exit_code)
                self.assertEqual(check(document, "sim0", "compute")["status"], status)
                self.assertEqual(check(document, "sim0", "events")["status"], events)

    def test_fail_on_none_reports_but_passes(self):
        document = self.faulty("corrupt_byte", "--fail-on", "none", exit_code=0)
        self.assertEqual(check(document, "sim0", "memory")["status"], "fail")
        self.assertEqual(document["fail_on"], [])

    def test_a_healthy_sim_device_passes(self):
        document = smoke_json(self, "--level", "2", "--device", "sim0", env=sim("sim0:mem=64MiB"))
        self.assertTrue(all(c["status"] == "pass" for c in document["checks"]), document["checks"])


class Requirements(CliTestCase):
    def test_zero_devices_of_a_required_kind_is_a_failure(self):
        document = smoke_json(self, "--device", "CPU", "--require", "NoSuchFamily>=1", exit_code=3)
        requirement = document["requirements"][0]
        self.assertFalse(requirement["met"])
        self.assertTrue(requirement["device_missing"])
        self.assertEqual(requirement["found"], 0)

    def test_family_counts(self):
        env = sim("a:mem=64MiB;b:mem=64MiB")
        self.assertEqual(smoke_json(self, "--device", "a", "--require", "Sim>=2", env=env)["requirements"][0]["found"],
                         2)
        document = smoke_json(self, "--device", "a", "--require", "Sim>=3", env=env, exit_code=3)
        self.assertIn("Sim>=3", document["requirements"][0]["message"])
        smoke_json(self, "--device", "a", "--require", "sim<2", env=env, exit_code=1)

    def test_simulated_devices_never_satisfy_a_device_type(self):
        document = smoke_json(self, "--device", "CPU", "--require", "cpu>=1", env=sim("g:type=gpu"))
        self.assertTrue(document["requirements"][0]["met"])
        result = smoke("--device", "CPU", "--require", "accel>=1", env=sim("g:type=accel"))
        self.assertEqual(result.returncode, 3, result.stdout)
        self.assertIn("MISSING", result.stdout)

    def test_min_memory(self):
        env = sim("s:mem=64MiB")
        smoke_json(self, "--device", "s", "--min-memory", "s=64MiB", env=env)
        document = smoke_json(self, "--device", "s", "--min-memory", "s=1GiB", env=env, exit_code=1)
        self.assertIn("less than", document["requirements"][0]["message"])
        smoke_json(self, "--device", "s", "--min-memory", "nodevice=1GiB", env=env, exit_code=3)

    def test_requirements_are_junit_testcases(self):
        junit = JUnitFile(self)
        result = smoke("--device", "CPU", "--require", "CPU>=1", "--require", "NoSuch>=1", "--junit", junit.path)
        self.assertEqual(result.returncode, 3)
        root = junit.validated()
        self.assertIsNone(testcase(root, "requirements", "require CPU>=1").find("failure"))
        failure = testcase(root, "requirements", "require NoSuch>=1").find("failure")
        self.assertEqual(failure.get("type"), "device_missing")


class Floors(CliTestCase):
    def floors_file(self, document):
        directory = tempfile.mkdtemp(prefix="bk-floors-")
        self.addCleanup(shutil.rmtree, directory)
        path = os.path.join(directory, "floors.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(document if isinstance(document, str) else json.dumps(document))
        return path

    def test_floors_below_and_above(self):
        low = {"schema": "bk.floors/v1", "floors": [{"device": "*", "matmul_f32_gflops": 1e-6}]}
        high = {"schema": "bk.floors/v1",
                "floors": [{"device": "*", "matmul_f32_gflops": 1e-6}, {"device": "CPU", "matmul_f32_gflops": 1e9}]}
        for document in (low, high):
            validate(document, "bk.floors.v1.json")
        passed = smoke_json(self, "--level", "2", "--device", "CPU", "--expect", self.floors_file(low))
        self.assertIn("floor", check(passed, "CPU", "matmul")["message"])
        failed = smoke_json(self, "--level", "2", "--device", "CPU", "--expect", self.floors_file(high), exit_code=1)
        matmul = check(failed, "CPU", "matmul")
        self.assertEqual(matmul["status"], "fail", "the device name is more specific than '*'")
        self.assertIn("below the floor", matmul["message"])

    def test_bad_floors_files_are_usage_errors(self):
        for text, needle in [("{", "not valid JSON"), ('{"floors": []}', "bk.floors/v1"),
                             ('{"schema": "bk.floors/v1", "floors": [{"device": "CPU", "matmul": 1}]}', "matmul"),
                             ('{"schema": "bk.floors/v1", "floors": [{"device": "CPU", "matmul_f32_gflops": -1}]}',
                              "> 0")]:
            with self.subTest(text=text):
                self.assertOneLineError(smoke("--expect", self.floors_file(text)), 2, needle)
        self.assertOneLineError(smoke("--expect", "/nonexistent/floors.json"), 2, "--expect")


class PromFile(ReportPath):
    """A temporary path for --prom; read() checks it with promtool and returns its samples as
    (name, labels, value) triples."""

    def __init__(self, test):
        super().__init__(test, "bk.prom")

    def read(self):
        if shutil.which("promtool") is None:
            self.test.skipTest("promtool is missing: install prometheus (scripts/test.sh does)")
        with open(self.path, encoding="utf-8") as f:
            text = f.read()
        lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True,
                              check=False)
        self.test.assertEqual(lint.returncode, 0, lint.stdout + lint.stderr)
        self.test.assertEqual(os.listdir(self.dir), ["bk.prom"], "no temporary file is left behind")
        samples = []
        for line in text.splitlines():
            if line.startswith("#"):
                continue
            match = re.fullmatch(r"(\w+)(?:\{(.*)\})? (\S+)", line)
            self.test.assertIsNotNone(match, line)
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group(2) or ""))
            samples.append((match.group(1), labels, float(match.group(3))))
        return samples


class Prometheus(CliTestCase):
    def test_every_check_and_measure_agrees_with_the_json(self):
        prom = PromFile(self)
        document = smoke_json(self, "--device", "CPU", "--prom", prom.path)
        samples = prom.read()
        statuses = {(l["device"], l["check"]): l["status"]
                    for name, l, v in samples if name == "bk_smoke_check_status" and v == 1}
        self.assertEqual(statuses, {(c["device"], c["check"]): c["status"] for c in document["checks"]})
        # Each check has one sample per status: a state set, exactly one of them 1.
        per_check = [l for name, l, v in samples if name == "bk_smoke_check_status"]
        self.assertEqual(len(per_check), 5 * len(document["checks"]))
        memory = {l["kind"]: v for name, l, v in samples if name == "bk_device_memory_bytes"}
        enumerate_metrics = check(document, "CPU", "enumerate")["metrics"]
        self.assertEqual(memory["total"], enumerate_metrics["memory_total_bytes"])
        write = [v for name, l, v in samples
                 if name == "bk_smoke_bandwidth_bytes_per_second" and l["direction"] == "write"]
        self.assertAlmostEqual(write[0] / 1e9, check(document, "CPU", "memory")["metrics"]["write_gbps"], places=6)
        self.assertIn(("bk_smoke_exit_code", {}, 0.0), samples)
        info = [l for name, l, v in samples if name == "bk_device_info"]
        self.assertEqual([l["device"] for l in info], ["CPU"])

    def test_a_failing_run_still_writes_its_metrics(self):
        prom = PromFile(self)
        smoke_json(self, "--device", "sim0", "--prom", prom.path, env=sim("sim0:fault=wrong_results"), exit_code=1)
        samples = prom.read()
        self.assertIn(("bk_smoke_check_status", {"device": "sim0", "check": "compute", "status": "fail"}, 1.0),
                      samples)
        self.assertIn(("bk_smoke_exit_code", {}, 1.0), samples)

    def test_level2_reports_matmul_gflops(self):
        prom = PromFile(self)
        document = smoke_json(self, "--device", "CPU", "--level", "2", "--prom", prom.path)
        gflops = [(l, v) for name, l, v in prom.read() if name == "bk_bench_gflops"]
        self.assertEqual([l for l, v in gflops], [{"device": "CPU", "test": "matmul", "dtype": "f32"}])
        self.assertEqual(gflops[0][1], check(document, "CPU", "matmul")["metrics"]["median_gflops"])

    def test_level3_reports_the_burnin_and_the_last_telemetry(self):
        prom = PromFile(self)
        document = smoke_json(self, "--device", "CPU", "--level", "3", "--duration", "1s", "--max-drop", "100%",
                              "--prom", prom.path)
        samples = prom.read()
        sustained = check(document, "CPU", "sustained")
        self.assertIn(("bk_bench_gflops", {"device": "CPU", "test": "sustained", "dtype": "f32"},
                       sustained["metrics"]["median_gflops"]), samples)
        # The CPU's clock, as the burn-in's last window read it (x86 Linux always has one).
        clocks = [(l, v) for name, l, v in samples if name == "bk_device_clock_mhz"]
        self.assertEqual(clocks, [({"device": "CPU", "clock": "cpu"}, sustained["timeline"][-1]["telemetry"]["cpu_mhz"])])


class BadInput(CliTestCase):
    def test_usage_errors(self):
        for args, needle in [(["--require", "CUDA"], "--require"), (["--require", ">=2"], "--require"),
                             (["--min-memory", "CUDA0"], "--min-memory"), (["--timeout", "0s"], "--timeout"),
                             (["--timeout", "abc"], "--timeout"), (["--duration", "-1"], "--duration"),
                             (["--fail-on", "pass"], "--fail-on"), (["--mem", "1x"], "--mem"),
                             (["--max-drop", "10"], "--max-drop"), (["--max-drop", "0%"], "--max-drop"),
                             (["--level", "4"], "--level"), (["--junit", "/nonexistent/dir/out.xml"], "--junit"),
                             (["--prom", "/nonexistent/dir/bk.prom"], "--prom")]:
            with self.subTest(args=args):
                self.assertOneLineError(smoke(*args), 2, needle)

    def test_unknown_device_is_not_found(self):
        self.assertOneLineError(smoke("--device", "NoSuchDevice"), 3, "NoSuchDevice")


if __name__ == "__main__":
    unittest.main()
