"""bkctl smoke's fleet mode: mpirun runs it on every rank and rank 0 writes one merged report (bk.fleet/v1).
Four ranks on this machine with simulated devices: one computes wrong results, one hangs, one is slow; the
merged report names exactly those ranks, finds the outlier, and the job ends within the timeout. A rank that
hangs outside the checks' watchdog is reported as missing and cannot hang the job."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bkctl_cli import BKCTL, FAST_ASAN, CliTestCase, validate  # noqa: E402

MPIRUN = shutil.which("mpirun")
MODULE = os.path.join(os.path.dirname(os.path.dirname(BKCTL)), "lib", "libbkctl-mpi.so")
XSD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "junit-10.xsd")
# Root in CI: OpenMPI refuses root without the first two. Four ranks on two cores need
# oversubscription; containers often forbid the cross-process reads (CMA) of OpenMPI's
# shared-memory transport, which then copies through its buffers instead.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1",
           "OMPI_MCA_btl_vader_single_copy_mechanism": "none", **FAST_ASAN}


def mpirun(ranks, *, timeout=180):
    """mpirun with one `-n 1 -x BK_SIM_DEVICES=... bkctl smoke ARGS` block per rank (MPMD)."""
    command = [MPIRUN]
    for i, (sim, args) in enumerate(ranks):
        if i:
            command.append(":")
        command += ["-n", "1", "-x", f"BK_SIM_DEVICES={sim}"]
        for name in FAST_ASAN:
            command += ["-x", name]
        command += [BKCTL, "smoke", *args]
    env = dict(os.environ, **MPI_ENV)
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    return result, time.monotonic() - started


@unittest.skipUnless(MPIRUN and os.path.exists(MODULE),
                     "fleet mode needs mpirun and libbkctl-mpi.so (apt-get install openmpi-bin libopenmpi-dev)")
class Fleet(CliTestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bk-fleet-")
        self.addCleanup(shutil.rmtree, self.dir)

    def fleet_json(self, result):
        document = json.loads(result.stdout)
        validate(document, "bk.fleet.v1.json")
        for node in document["nodes"]:
            if node["report"] is not None:
                validate(node["report"], "bk.smoke.v2.json")
        return document

    def test_faulty_hung_and_slow_ranks_are_named(self):
        junit = os.path.join(self.dir, "fleet.xml")
        common = ["--level", "2", "--device", "sim0", "--mem", "8MiB", "--timeout", "2s", "--json",
                  "--interconnect", "4MiB"]
        ranks = [("sim0:mem=64MiB", common + ["--junit", junit]), ("sim0:mem=64MiB,fault=wrong_results", common),
                 ("sim0:mem=64MiB,fault=hang", common), ("sim0:mem=64MiB,slow=4", common)]
        result, seconds = mpirun(ranks)
        # The hang is cut off by the watchdog after 2 s: a timed-out check is exit 5, as for one node.
        self.assertEqual(result.returncode, 5, result.stderr[-3000:])
        self.assertLess(seconds, 60, "the job ends soon after the watchdog's 2 s")
        document = self.fleet_json(result)
        self.assertEqual(document["ranks"], 4)
        self.assertEqual([n["rank"] for n in document["nodes"]], [0, 1, 2, 3])
        self.assertTrue(all(n["reported"] for n in document["nodes"]))
        self.assertEqual([n["exit_code"] for n in document["nodes"]], [0, 1, 5, 0])
        checks = {n["rank"]: {c["check"]: c for c in n["report"]["checks"]} for n in document["nodes"]}
        self.assertEqual(checks[1]["compute"]["status"], "fail")
        self.assertTrue(checks[2]["compute"]["timed_out"])
        self.assertEqual(checks[3]["matmul"]["status"], "pass")
        # The slow rank's matmul is far below the fleet median of the same device model: the outlier.
        self.assertEqual([(o["rank"], o["device"], o["test"]) for o in document["outliers"]], [(3, "sim0", "matmul")])
        self.assertGreater(document["outliers"][0]["below"], 0.15)
        self.assertIn("ranks 1, 2 failed their checks", document["verdict_message"])
        self.assertIn("rank 3 measured below the fleet", document["verdict_message"])
        # Two ranks or more: the interconnect was measured before the checks.
        interconnect = document["interconnect"]
        self.assertIsNone(interconnect["error"])
        self.assertGreater(interconnect["ring_gbps"], 0)
        self.assertGreater(interconnect["allreduce_busbw_gbps"], 0)
        self.assertEqual(interconnect["bytes"], 4 << 20)
        # One JUnit file, a suite per host and rank, valid against the XSD.
        subprocess.run(["xmllint", "--noout", "--schema", XSD, junit], check=True, capture_output=True)
        suites = ET.parse(junit).getroot().findall("testsuite")
        self.assertEqual([s.get("name").split(" rank ")[1] for s in suites], ["0", "1", "2", "3"])
        self.assertEqual([int(s.get("failures")) + int(s.get("errors")) > 0 for s in suites],
                         [False, True, True, True])
        outlier = [c for c in suites[3].findall("testcase") if c.get("name") == "outlier sim0 matmul"]
        self.assertEqual(len(outlier), 1)

    def test_two_ranks_of_real_devices_pass(self):
        # mpirun binds each of two ranks to a core of its own, so their CPU matmuls do not compete
        # (and do not make one of them an outlier).
        result, _ = mpirun([("", ["--level", "2", "--device", "CPU", "--mem", "8MiB", "--json"])] * 2)
        self.assertEqual(result.returncode, 0, result.stderr[-3000:])
        document = self.fleet_json(result)
        self.assertEqual(document["verdict"], "pass")
        self.assertEqual([n["report"]["host"]["name"] for n in document["nodes"]], [os.uname().nodename] * 2)
        # The human report, rank 0's alone, fits 80 columns.
        result, _ = mpirun([("", ["--device", "CPU", "--mem", "8MiB"])] * 2)
        self.assertEqual(result.returncode, 0, result.stderr[-3000:])
        self.assertIn("bkctl smoke: fleet of 2 ranks", result.stdout)
        self.assertEqual(result.stdout.count("PASS: 2 ranks, every check passed"), 1)
        self.assertLessEqual(max(len(line) for line in result.stdout.splitlines()), 80)

    def test_a_rank_that_never_reports_cannot_hang_the_job(self):
        # Rank 1's watchdog allows 120 s, so its hung device keeps it from reporting; rank 0 waits
        # --rank-timeout after its own checks, writes the report without it and ends the job.
        args = ["--level", "1", "--device", "sim0", "--mem", "8MiB", "--json", "--rank-timeout", "3s"]
        result, seconds = mpirun([("sim0:mem=64MiB", args + ["--timeout", "5s"]),
                                  ("sim0:mem=64MiB,fault=hang", args + ["--timeout", "120s"])])
        self.assertEqual(result.returncode, 5, result.stderr[-3000:])
        self.assertLess(seconds, 60)
        document = self.fleet_json(result)
        missing = document["nodes"][1]
        self.assertFalse(missing["reported"])
        self.assertIsNone(missing["report"])
        self.assertIn("no report", missing["problem"])
        self.assertIn("rank 1 sent no report", document["verdict_message"])

    def test_interconnect_floors_come_from_the_floors_file(self):
        floors = os.path.join(self.dir, "floors.json")
        with open(floors, "w", encoding="utf-8") as f:
            json.dump({"schema": "bk.floors/v1", "floors": [], "interconnect": {"ring_gbps": 1e6}}, f)
        result, _ = mpirun([("", ["--device", "CPU", "--mem", "8MiB", "--json", "--expect", floors,
                                  "--interconnect", "4MiB"])] * 2)
        self.assertEqual(result.returncode, 1, result.stderr[-3000:])
        document = self.fleet_json(result)
        self.assertEqual(len(document["interconnect"]["problems"]), 1)
        self.assertIn("below the floor 1e+06", document["interconnect"]["problems"][0])

    def test_the_interconnect_check_can_be_skipped(self):
        result, _ = mpirun([("", ["--device", "CPU", "--mem", "8MiB", "--json", "--interconnect", "0"])] * 2)
        self.assertEqual(result.returncode, 0, result.stderr[-3000:])
        self.assertIsNone(self.fleet_json(result)["interconnect"])

    def test_prometheus_files_stay_per_node(self):
        prom = [os.path.join(self.dir, f"rank{i}.prom") for i in range(2)]
        result, _ = mpirun([("", ["--device", "CPU", "--mem", "8MiB", "--prom", prom[i]]) for i in range(2)])
        self.assertEqual(result.returncode, 0, result.stderr[-3000:])
        for path in prom:
            with open(path, encoding="utf-8") as f:
                self.assertIn('bk_smoke_check_status{device="CPU",check="memory",status="pass"} 1', f.read())


if __name__ == "__main__":
    unittest.main()
