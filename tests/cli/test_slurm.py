"""bkctl smoke's fleet mode under Slurm: srun starts the ranks (Slurm's PMIx plugin, no mpirun), rank 0
writes one merged report. The tests run a one-node Slurm cluster of their own on this machine (munged,
slurmctld and slurmd in the foreground, with a private key, ports, directories and slurm.conf), so nothing
of the machine's own Slurm or munge, if any, is used or changed. Root only: slurmd starts the tasks as
their user and needs root for it."""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bkctl_cli import BKCTL, FAST_ASAN, CliTestCase, validate  # noqa: E402

DAEMONS = {name: shutil.which(name) or os.path.join("/usr/sbin", name) for name in ("munged", "slurmctld", "slurmd")}
SRUN = shutil.which("srun")
MODULE = os.path.join(os.path.dirname(os.path.dirname(BKCTL)), "lib", "libbkctl-mpi.so")
XSD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "junit-10.xsd")
HOST = socket.gethostname().split(".")[0]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """munged, slurmctld and slurmd for one node (this machine), all files under `root`."""

    def __init__(self, root):
        self.root = root
        self.processes = []
        self.conf = os.path.join(root, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf, **FAST_ASAN)

    def path(self, name):
        return os.path.join(self.root, name)

    def start(self):
        key = self.path("munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        socket_path = self.path("munge.sock")
        self.spawn(DAEMONS["munged"], "--foreground", "--force", f"--socket={socket_path}", f"--key-file={key}",
                   f"--pid-file={self.path('munged.pid')}", f"--log-file={self.path('munged.log')}",
                   f"--seed-file={self.path('munged.seed')}")
        for name in ("ctld", "spool"):
            os.mkdir(self.path(name))
        with open(self.conf, "w", encoding="utf-8") as f:
            f.write(f"""ClusterName=bktest
SlurmctldHost={HOST}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={socket_path}
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
StateSaveLocation={self.path('ctld')}
SlurmdSpoolDir={self.path('spool')}
SlurmctldPidFile={self.path('slurmctld.pid')}
SlurmdPidFile={self.path('slurmd.pid')}
SlurmctldLogFile={self.path('slurmctld.log')}
SlurmdLogFile={self.path('slurmd.log')}
NodeName={HOST} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} State=UNKNOWN
PartitionName=bk Nodes={HOST} Default=YES MaxTime=INFINITE State=UP
""")
        self.spawn(DAEMONS["slurmctld"], "-D", "-i", "-f", self.conf)
        self.spawn(DAEMONS["slurmd"], "-D", "-f", self.conf)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = subprocess.run(["sinfo", "-h", "-o", "%t"], env=self.env, capture_output=True, text=True,
                                   check=False).stdout.strip()
            if state == "idle":
                return None
            if any(p.poll() is not None for p in self.processes):
                break
            time.sleep(0.2)  # polling an outside daemon's state, with a deadline
        return "the test cluster did not come up:\n" + self.logs()

    def spawn(self, *command):
        self.processes.append(subprocess.Popen(command, env=self.env, stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL))

    def logs(self):
        text = ""
        for name in ("munged.log", "slurmctld.log", "slurmd.log"):
            if os.path.exists(self.path(name)):
                with open(self.path(name), encoding="utf-8", errors="replace") as f:
                    text += f"--- {name}\n" + "".join(f.readlines()[-15:])
        return text

    def stop(self):
        for p in reversed(self.processes):
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def srun(self, *args, timeout=180):
        started = time.monotonic()
        result = subprocess.run([SRUN, *args], env=self.env, capture_output=True, text=True, timeout=timeout,
                                check=False)
        return result, time.monotonic() - started


@unittest.skipUnless(os.geteuid() == 0 and SRUN and all(os.path.exists(p) for p in DAEMONS.values()),
                     "needs root and Slurm (apt-get install slurmctld slurmd slurm-client munge)")
@unittest.skipUnless(os.path.exists(MODULE), "fleet mode needs libbkctl-mpi.so (apt-get install libopenmpi-dev)")
class Slurm(CliTestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="bk-slurm-")
        cls.cluster = Cluster(cls.dir)
        problem = cls.cluster.start()
        if problem:
            cls.tearDownClass()
            raise unittest.SkipTest(problem)

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def multi_prog(self, lines):
        """srun --multi-prog's file: one `rank command...` line per rank."""
        path = os.path.join(self.dir, "ranks.conf")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(f"{rank} {line}\n" for rank, line in enumerate(lines)))
        return path

    def test_srun_pmix_gives_one_report_and_one_junit_file(self):
        junit = os.path.join(self.dir, "fleet.xml")
        result, _ = self.cluster.srun("--mpi=pmix", "-n", "2", BKCTL, "smoke", "--level", "2", "--device", "CPU",
                                      "--mem", "8MiB", "--json", "--interconnect", "4MiB", "--junit", junit)
        self.assertEqual(result.returncode, 0, result.stderr[-3000:])
        document = json.loads(result.stdout)  # rank 0's alone: rank 1 prints nothing on stdout
        validate(document, "bk.fleet.v1.json")
        self.assertEqual(document["ranks"], 2)
        self.assertEqual(document["verdict"], "pass")
        self.assertEqual([(n["rank"], n["report"]["host"]["name"]) for n in document["nodes"]],
                         [(0, socket.gethostname()), (1, socket.gethostname())])
        self.assertGreater(document["interconnect"]["ring_gbps"], 0)
        subprocess.run(["xmllint", "--noout", "--schema", XSD, junit], check=True, capture_output=True)
        self.assertEqual(len(ET.parse(junit).getroot().findall("testsuite")), 2)

    def test_faulty_hung_and_slow_ranks_are_named(self):
        # As tests/cli/test_fleet.py does with mpirun: srun returns the highest of the tasks' exit codes,
        # rank 0's 5 here (the others exit 0).
        common = f"{BKCTL} smoke --level 2 --device sim0 --mem 8MiB --timeout 2s --json --interconnect 4MiB"
        ranks = [f"env BK_SIM_DEVICES=sim0:mem=64MiB{fault} {common}"
                 for fault in ("", ",fault=wrong_results", ",fault=hang", ",slow=4")]
        result, seconds = self.cluster.srun("--mpi=pmix", "--overcommit", "-n", "4", "--multi-prog",
                                            self.multi_prog(ranks))
        self.assertEqual(result.returncode, 5, result.stderr[-3000:])
        self.assertLess(seconds, 60)
        document = json.loads(result.stdout)
        validate(document, "bk.fleet.v1.json")
        self.assertEqual([n["exit_code"] for n in document["nodes"]], [0, 1, 5, 0])
        self.assertEqual([(o["rank"], o["test"]) for o in document["outliers"]], [(3, "matmul")])

    def test_a_rank_that_never_reports_cannot_hang_the_step(self):
        # Rank 0 leaves without finalizing MPI; Slurm's PMIx plugin then cancels the step, killing rank 1.
        # srun's exit code is the killed task's (128 + signal), so the verdict is read from the report.
        common = f"{BKCTL} smoke --level 1 --device sim0 --mem 8MiB --json --rank-timeout 3s"
        result, seconds = self.cluster.srun("--mpi=pmix", "-n", "2", "--multi-prog", self.multi_prog(
            [f"env BK_SIM_DEVICES=sim0:mem=64MiB {common} --timeout 5s",
             f"env BK_SIM_DEVICES=sim0:mem=64MiB,fault=hang {common} --timeout 120s"]))
        self.assertNotEqual(result.returncode, 0, result.stderr[-3000:])
        self.assertLess(seconds, 60)
        document = json.loads(result.stdout)
        validate(document, "bk.fleet.v1.json")
        self.assertEqual(document["exit_code"], 5)
        self.assertFalse(document["nodes"][1]["reported"])
        self.assertIn("rank 1 sent no report", document["verdict_message"])


if __name__ == "__main__":
    unittest.main()
