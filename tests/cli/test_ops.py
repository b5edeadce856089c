"""bkctl ops: the capability matrix as a table and as bk.ops/v1 JSON, and its errors."""

import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bkctl_cli import CliTestCase, VERSION, run  # noqa: E402

OPS = ["add", "mul", "scale", "silu", "gelu", "mul_mat", "rms_norm", "soft_max", "rope", "get_rows", "cpy", "cont",
       "reshape", "view", "permute", "transpose"]
DTYPES = ["f32", "f16", "bf16"]
QUANTIZED = ["q8_0", "q4_0", "q4_k", "q6_k"]  # weights: mul_mat and get_rows only


def expected_keys():
    """(op, dtype, to) for every entry, in the documented order."""
    keys = []
    for op in OPS:
        for dtype in DTYPES:
            if op == "cpy":
                keys.extend((op, dtype, to) for to in DTYPES)
            else:
                keys.append((op, dtype, None))
        if op in ("mul_mat", "get_rows"):
            keys.extend((op, dtype, None) for dtype in QUANTIZED)
    return keys


class OpsJson(CliTestCase):
    @classmethod
    def setUpClass(cls):
        cls.all = run("ops", "--json")
        cls.cpu = run("ops", "--device", "cpu", "--json")

    def test_every_device_validates_against_the_schema(self):
        document = self.assertJsonOutput(self.all, "bk.ops.v1.json")
        self.assertEqual(document["bkctl_version"], VERSION)
        names = [d["name"] for d in document["devices"]]
        self.assertIn("CPU", names)
        devices = self.assertJsonOutput(run("devices", "--json"), "bk.devices.v1.json")["devices"]
        self.assertEqual(names, [d["name"] for d in devices], "every device, in registry order")

    def test_each_device_lists_every_op_and_dtype_once_in_order(self):
        document = self.assertJsonOutput(self.all, "bk.ops.v1.json")
        for device in document["devices"]:
            keys = [(e["op"], e["dtype"], e.get("to")) for e in device["ops"]]
            self.assertEqual(keys, expected_keys(), device["name"])

    def test_cpu_computes_everything(self):
        document = self.assertJsonOutput(self.cpu, "bk.ops.v1.json")
        self.assertEqual([d["name"] for d in document["devices"]], ["CPU"])
        unsupported = [e for e in document["devices"][0]["ops"] if not e["supported"]]
        self.assertEqual(unsupported, [], "the CPU has a kernel for every op x dtype")
        for entry in document["devices"][0]["ops"]:
            self.assertIsNone(entry["reason"])

    def test_unsupported_entries_carry_the_devices_reason(self):
        document = self.assertJsonOutput(self.all, "bk.ops.v1.json")
        for device in document["devices"]:
            for entry in device["ops"]:
                if not entry["supported"]:
                    self.assertTrue(entry["reason"], f"{device['name']} {entry}")


class OpsTable(CliTestCase):
    def table_rows(self, stdout):
        """The header's names and each row's cells, cut at the columns' positions (a cell may hold
        several words: "f32 f16 bf16")."""
        lines = stdout.splitlines()
        header = next(i for i, line in enumerate(lines) if line.startswith("op "))
        names = lines[header].split()
        starts = [m.start() for m in re.finditer(r"\S+", lines[header])]
        rows = []
        for line in lines[header + 2:]:
            if not line.strip():
                break
            ends = starts[1:] + [len(line)]
            rows.append([line[a:b].strip() for a, b in zip(starts, ends)])
        return names, rows

    def test_one_row_per_op_and_a_column_per_device(self):
        result = run("ops", "--device", "CPU", env={"NO_COLOR": "1"})
        self.assertOk(result)
        header, rows = self.table_rows(result.stdout)
        self.assertEqual(header, ["op", "CPU"])
        self.assertEqual([r[0] for r in rows], list(dict.fromkeys(op for op, _, _ in expected_keys())))
        self.assertIn(["mul_mat", "yes"], rows)
        self.assertIn(["cpy", "yes"], rows)
        self.assertNotIn("Not supported", result.stdout)
        self.assertEqual(result.stderr, "")

    def test_a_cell_names_the_dtypes_an_op_runs_in_when_not_all(self):
        env = {"NO_COLOR": "1", "BK_SIM_DEVICES": "sim0:ops=mul_mat+add"}
        document = json.loads(run("ops", "--json", env=env).stdout)
        result = run("ops", env=env)
        self.assertOk(result)
        header, rows = self.table_rows(result.stdout)
        self.assertEqual(header[0], "op")
        self.assertEqual(header[1:], [d["name"] for d in document["devices"]])
        self.assertEqual(header[-1], "sim0", "simulated devices come last")
        cells = {r[0]: dict(zip(header[1:], r[1:])) for r in rows}
        for device in document["devices"]:
            for op, row in cells.items():
                entries = [e for e in device["ops"] if e["op"] == op]
                runs = [e["dtype"] if e.get("to") is None else f"{e['dtype']}->{e['to']}"
                        for e in entries if e["supported"]]
                expected = ("yes" if len(runs) == len(entries) else "no" if not runs
                            else f"{len(runs)} of {len(entries)}" if len(runs) > 3 else " ".join(runs))
                self.assertEqual(row[device["name"]], expected, (device["name"], op))
        self.assertEqual(cells["mul"]["CPU"], "yes")
        self.assertEqual(cells["mul"]["sim0"], "no")
        self.assertEqual(cells["add"]["sim0"], "yes")

    def test_reasons_are_grouped_one_line_per_device_and_reason(self):
        env = {"NO_COLOR": "1", "COLUMNS": "200", "BK_SIM_DEVICES": "sim0:ops=mul_mat+add"}
        document = json.loads(run("ops", "--device", "sim0", "--json", env=env).stdout)
        refused = [e for e in document["devices"][0]["ops"] if not e["supported"]]
        self.assertGreater(len(refused), 20)
        result = run("ops", "--device", "sim0", env=env)
        self.assertOk(result)
        notes = result.stdout.split("Not supported:\n", 1)[1].splitlines()
        by_reason = {}
        for line in notes:
            self.assertTrue(line.startswith("  sim0 "), line)
            items, reason = line[len("  sim0 "):].split(": ", 1)
            self.assertNotIn(reason, by_reason, "one line per reason")
            by_reason[reason] = items.split(", ")
        for entry in refused:
            items = by_reason[entry["reason"]]
            self.assertTrue(entry["op"] in items or any(i.startswith(entry["op"] + " ") for i in items),
                            (entry, items))
        self.assertEqual(len(notes), len({e["reason"] for e in refused}), "identical reasons share a line")
        self.assertIn("  sim0 mul: ", result.stdout, "an op refused in every dtype is named alone")

    def test_all_devices_by_default(self):
        result = run("ops", env={"NO_COLOR": "1"})
        self.assertOk(result)
        self.assertIn("CPU", result.stdout.splitlines()[0].split())


class OpsErrors(CliTestCase):
    def test_unknown_device_is_not_found_with_the_device_list(self):
        self.assertOneLineError(run("ops", "--device", "Nope9"), 3, "Nope9", "CPU")

    def test_unknown_flag_is_usage(self):
        result = run("ops", "--frobnicate")
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stdout, "")


if __name__ == "__main__":
    unittest.main()
