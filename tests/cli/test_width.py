"""Human output fits the terminal (issue 22): every command's text at 80 columns (and narrower or
wider when COLUMNS or the terminal says so), with simulated devices whose long reasons and
descriptions would otherwise run past the edge. JSON and CSV are never wrapped."""

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import tempfile
import termios
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bkctl_cli import BKCTL, CliTestCase, run  # noqa: E402

# A GPU that refuses most ops (long reasons), one without events, and a CPU-like accelerator.
SIMS = "gpu0:type=gpu,ops=mul_mat+add,mem=64MiB;gpu1:type=igpu,events=no,mem=64MiB"
FAST = ("--budget", "0.02s", "--warmup", "1")

COMMANDS = (
    ("--help",),
    *((name, "--help") for name in ("devices", "alloc", "schema", "sched", "ops", "bench", "smoke")),
    ("devices",),
    ("devices", "--verbose"),
    ("schema", "--list"),
    ("ops",),
    ("alloc", "--device", "gpu0", "--size", "1MiB"),
    ("sched", "--devices", "gpu0,gpu1,CPU"),
    ("sched", "--devices", "gpu0,CPU", "--weights-on", "gpu0", "--verbose", "--run"),
    ("sched", "--graph", "mlp", "--devices", "gpu0,gpu1,CPU", "--weights-split", "0.4,0.4,0.2", "--copies", "2"),
    ("bench", "--device", "gpu0,gpu1", "--op", "peak,mul_mat,add,cpy,h2d,event_latency", "--size", "64", *FAST),
    ("bench", "--device", "CPU", "--graph", "mlp", "--devices", "gpu0", *FAST),
    ("smoke", "--device", "gpu0,gpu1", "--mem", "1MiB", "--require", "gpu>=3", "--min-memory", "gpu0=1TiB"),
)


def widest(text):
    return max((len(line) for line in text.splitlines()), default=0)


class EightyColumns(CliTestCase):
    def run_at(self, columns, *args):
        return run(*args, env={"BK_SIM_DEVICES": SIMS, "COLUMNS": str(columns), "NO_COLOR": "1"})

    def test_every_command_fits_80_columns(self):
        for args in COMMANDS:
            with self.subTest(args=args):
                result = self.run_at(80, *args)
                self.assertIn(result.returncode, (0, 1, 3), result.stderr)
                self.assertTrue(result.stdout.strip(), "something to look at")
                too_wide = [line for line in result.stdout.splitlines() if len(line) > 80]
                self.assertEqual(too_wide, [], "\n" + result.stdout)

    def test_narrower_and_wider_terminals(self):
        args = ("sched", "--devices", "gpu0,CPU", "--weights-on", "gpu0", "--verbose")
        narrow = self.run_at(66, *args)
        self.assertOk(narrow)
        self.assertLessEqual(widest(narrow.stdout), 66, narrow.stdout)
        wide = self.run_at(200, *args)
        self.assertOk(wide)
        self.assertGreater(widest(wide.stdout), 80, "a wide terminal gets long lines back")
        self.assertLess(len(wide.stdout.splitlines()), len(narrow.stdout.splitlines()))

    def test_json_and_csv_are_never_wrapped(self):
        document = self.run_at(40, "ops", "--json")
        self.assertOk(document)
        reasons = [e["reason"] for d in json.loads(document.stdout)["devices"] for e in d["ops"] if e["reason"]]
        self.assertTrue(any(len(r) > 40 for r in reasons), "long reasons are kept whole")
        csv = self.run_at(40, "bench", "--device", "gpu0", "--op", "peak", *FAST, "--csv")
        self.assertOk(csv)
        self.assertTrue(all(line.count(",") == 14 for line in csv.stdout.splitlines()), csv.stdout)


class Terminal(CliTestCase):
    """On a terminal the width comes from the terminal itself (TIOCGWINSZ), not from COLUMNS."""

    def run_on_terminal(self, columns, *args):
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        env = dict(os.environ, BK_SIM_DEVICES=SIMS, COLUMNS="300", NO_COLOR="1")
        with tempfile.TemporaryFile() as err:
            process = subprocess.Popen([BKCTL, *args], stdout=follower, stderr=err, env=env)
            os.close(follower)
            output = b""
            while True:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the follower side closed: the process is done writing
                    break
                if not chunk:
                    break
                output += chunk
            process.wait(timeout=120)
            os.close(leader)
        return process.returncode, output.decode().replace("\r\n", "\n")

    def test_the_terminal_width_wins(self):
        for columns in (120, 64):
            with self.subTest(columns=columns):
                code, text = self.run_on_terminal(columns, "sched", "--devices", "gpu0,CPU", "--verbose")
                self.assertEqual(code, 0, text)
                self.assertLessEqual(widest(text), columns, text)
                if columns > 80:
                    self.assertGreater(widest(text), 80, text)


if __name__ == "__main__":
    unittest.main()
