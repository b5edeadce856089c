"""bkctl sched: the split summary, --verbose, --json (bk.sched/v2), graph files and their errors, --run.

Multi-device decisions use simulated devices (BK_SIM_DEVICES), so these run on any machine. "host"
is a simulated CPU-type device that declares every op: it stands in for the CPU as the fallback
while the real CPU device lacks kernels, so that the decisions tested do not depend on them.
"""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bkctl_cli import FAST_ASAN, CliTestCase, run, validate  # noqa: E402

SIMS = "gpu0:type=gpu,ops=mul_mat+add,mem=8GiB;gpu1:type=gpu,mem=1GiB;host:type=cpu"
SIM_ENV = {"BK_SIM_DEVICES": SIMS}
CAUSES = {"pinned", "preallocated", "weight", "offload", "graph_input", "expand_down", "expand_up", "upgrade",
          "best_inputs", "fallback", "view_source"}


def sched(*args, env=SIM_ENV):
    return run("sched", *args, env=env)


def graph_file(tensors, outputs=("out",)):
    return json.dumps({"schema": "bk.graph/v1", "tensors": tensors, "outputs": list(outputs)})


GOOD_TENSORS = [
    {"name": "x", "kind": "input", "type": "f32", "shape": [64, 8]},
    {"name": "w", "kind": "weight", "type": "f32", "shape": [64, 64]},
    {"name": "h", "op": "mul_mat", "src": ["w", "x"]},
    {"name": "n", "op": "rms_norm", "src": ["h"]},
    {"name": "out", "op": "add", "src": ["n", "h"]},
]


class GraphFiles:
    """Writes graph files into a temporary directory that lives as long as the test."""

    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.addCleanup(self._dir.cleanup)

    def write(self, name, text):
        path = os.path.join(self._dir.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path


class SplitSummary(CliTestCase):
    def test_summary_has_one_line_per_split_and_labels_simulated_devices(self):
        result = sched("--graph", "mlp", "--devices", "gpu0,host", "--weights-on", "gpu0")
        self.assertOk(result)
        self.assertIn("simulated", result.stdout)
        document = json.loads(sched("--graph", "mlp", "--devices", "gpu0,host", "--weights-on", "gpu0",
                                    "--json").stdout)
        rows = [line for line in result.stdout.splitlines() if line[:5].strip().isdigit()]
        self.assertEqual(len(rows), len(document["splits"]), result.stdout)
        for row, split in zip(rows, document["splits"]):
            self.assertEqual(row.split()[1], split["backend"])

    def test_verbose_has_a_line_per_node_with_cause_and_passed_over_reasons(self):
        result = sched("--graph", "mlp", "--devices", "gpu0,host", "--weights-on", "gpu0", "--verbose")
        self.assertOk(result)
        self.assertRegex(result.stdout, r"(?m)^\s+\d+\s+\S+\s+mul_mat\s+gpu0\s+weight\s")
        self.assertRegex(result.stdout, r"(?m)^\s+not gpu0\s+unsupported_op\s")

    def test_an_idle_device_says_why_and_how_to_give_it_work(self):
        idle = sched("--graph", "mlp", "--devices", "gpu0,host")
        self.assertOk(idle)
        self.assertRegex(idle.stdout, r"(?m)^nodes per backend: gpu0 0,")
        prose = " ".join(idle.stdout.split())  # the lines are wrapped to the width
        self.assertRegex(prose, r"gpu0 runs no node; passed over: .*offload_declined \d+")
        self.assertIn("--weights-on gpu0 or --weights-split 0.33,0.33,0.33", prose)
        self.assertNotRegex(idle.stdout, r"(?m)^CPU runs no node", "the fallback is never called idle")
        busy = sched("--graph", "mlp", "--devices", "gpu0,host", "--weights-on", "gpu0")
        self.assertOk(busy)
        self.assertNotIn("gpu0 runs no node", busy.stdout)

    def test_a_device_that_runs_none_of_the_ops_gets_no_weights_hint(self):
        result = sched("--graph", "mlp", "--devices", "Null0", env={"BK_NULL_DEVICES": "1"})
        self.assertOk(result)
        self.assertRegex(result.stdout, r"(?m)^Null0 runs no node; passed over: unsupported_op \d+")
        self.assertNotIn("--weights-on Null0", result.stdout, "weights on a device that runs no op would not help")


class JsonReport(CliTestCase):
    def report(self, *args):
        return self.assertJsonOutput(sched(*args, "--json"), "bk.sched.v2.json")

    def test_an_idle_device_and_why_are_in_the_json_too(self):
        doc = self.report("--graph", "mlp", "--devices", "gpu0,host")
        idle = {entry["backend"]: entry for entry in doc["idle_backends"]}
        self.assertIn("gpu0", idle)
        self.assertNotIn(doc["backends"][-1]["name"], idle, "the fallback is never called idle")
        self.assertFalse(idle["gpu0"]["holds_weights"])
        self.assertTrue(idle["gpu0"]["could_run"], "gpu0 runs mul_mat and add")
        reasons = [p["reason"] for p in idle["gpu0"]["passed_over"]]
        self.assertIn("offload_declined", reasons)
        counts = [p["nodes"] for p in idle["gpu0"]["passed_over"]]
        self.assertEqual(counts, sorted(counts, reverse=True), "most frequent reason first")
        busy = self.report("--graph", "mlp", "--devices", "gpu0,host", "--weights-on", "gpu0")
        self.assertNotIn("gpu0", [entry["backend"] for entry in busy["idle_backends"]])

    def test_every_built_in_graph_validates_and_keeps_the_invariants(self):
        for graph in ("mlp", "attention", "transformer"):
            with self.subTest(graph=graph):
                doc = self.report("--graph", graph, "--devices", "gpu0,gpu1,host", "--weights-split", "0.5,0.3,0.2,0")
                self.assertEqual(doc["graph"]["name"], graph)
                self.assertTrue(doc["backends"][0]["simulated"])
                self.assertEqual(doc["backends"][-1]["type"], "cpu")
                for node in doc["nodes"]:
                    self.assertIn(node["cause"], CAUSES)
                    self.assertTrue(node["reason"])
                    self.assertIn(node["backend"], [b["name"] for b in doc["backends"]])
                self.assertEqual(doc["totals"]["splits"], len(doc["splits"]))
                copies = [(i["tensor"], s["index"]) for s in doc["splits"] for i in s["inputs"]]
                self.assertEqual(len(copies), len(set(copies)), "a tensor is copied at most once per split")
                self.assertEqual(doc["totals"]["copies"], len(copies))
                self.assertEqual(doc["totals"]["bytes_copied"],
                                 sum(i["bytes"] for s in doc["splits"] for i in s["inputs"]))

    def test_pin_is_reported_as_the_cause(self):
        doc = self.report("--graph", "mlp", "--devices", "gpu1,host", "--pin", "fc_up-0=host")
        node = next(n for n in doc["nodes"] if n["name"] == "fc_up-0")
        self.assertEqual(node["cause"], "pinned")
        self.assertEqual(node["backend"], "host")
        self.assertEqual(doc["options"]["pins"], [{"tensor": "fc_up-0", "device": "host"}])

    def test_weights_on_a_device_run_their_matmuls_there(self):
        doc = self.report("--graph", "transformer", "--layers", "1", "--devices", "gpu0,host", "--weights-on", "gpu0")
        matmuls = [n for n in doc["nodes"] if n["op"] == "mul_mat" and n["cause"] == "weight"]
        self.assertTrue(matmuls)
        for n in matmuls:
            self.assertEqual(n["backend"], "gpu0")

    def test_copies_multiply_the_pipelined_inputs(self):
        doc = self.report("--graph", "mlp", "--devices", "gpu0,host", "--weights-on", "gpu0", "--copies", "3")
        self.assertEqual(doc["options"]["copies"], 3)


class GraphFileInput(GraphFiles, CliTestCase):
    def test_a_graph_file_is_scheduled_and_reported(self):
        path = self.write("g.json", graph_file(GOOD_TENSORS))
        doc = self.assertJsonOutput(sched("--graph-file", path, "--devices", "gpu0,host", "--json"),
                                    "bk.sched.v2.json")
        self.assertEqual(doc["graph"]["source"], "file")
        self.assertEqual([n["name"] for n in doc["nodes"]], ["h", "n", "out"])

    def test_the_good_file_matches_the_graph_schema(self):
        validate(json.loads(graph_file(GOOD_TENSORS)), "bk.graph.v1.json")

    def test_malformed_files_exit_2_naming_the_offending_tensor(self):
        bad_shape = GOOD_TENSORS[:4] + [{"name": "out", "op": "add", "src": ["n", "w"]}]
        cases = {
            "bad_json": ('{"schema": "bk.graph/v1", "tensors": [', ["not valid JSON"]),
            "unknown_op": (graph_file(GOOD_TENSORS[:4] + [{"name": "out", "op": "frob", "src": ["n"]}]),
                           ["'out'", "frob"]),
            "dangling": (graph_file(GOOD_TENSORS[:4] + [{"name": "out", "op": "add", "src": ["n", "nope"]}]),
                         ["'out'", "'nope'"]),
            "cycle": (graph_file(GOOD_TENSORS[:2] + [{"name": "h", "op": "mul_mat", "src": ["w", "out"]}] +
                                 GOOD_TENSORS[3:]), ["cycle", "'h'"]),
            "shape": (graph_file(bad_shape), ["'out'", "add"]),
        }
        for name, (text, needles) in cases.items():
            with self.subTest(case=name):
                path = self.write(f"{name}.json", text)
                self.assertOneLineError(sched("--graph-file", path), 2, os.path.basename(path), *needles)

    def test_missing_file_exits_2(self):
        self.assertOneLineError(sched("--graph-file", "/nonexistent/graph.json"), 2, "/nonexistent/graph.json")


class UsageErrors(CliTestCase):
    def test_unknown_device_exits_3_listing_the_devices(self):
        self.assertOneLineError(sched("--devices", "nope0,CPU"), 3, "nope0", "CPU")

    def test_bad_options_exit_2(self):
        cases = [
            (["--graph", "nope"], ["nope", "mlp"]),
            (["--graph", "mlp", "--graph-file", "x.json"], ["--graph-file"]),
            (["--copies", "0"], ["--copies"]),
            (["--dtype", "q4"], ["q4"]),
            (["--devices", "gpu0,host", "--weights-split", "0.5"], ["--weights-split"]),
            (["--devices", "gpu0,host", "--pin", "nope=gpu0"], ["'nope'"]),
            (["--graph", "mlp", "--devices", "gpu0,host", "--pin", "fc_up-0=gpu1"], ["gpu1", "--devices"]),
            (["--graph", "attention", "--hidden", "100", "--heads", "3"], ["heads"]),
        ]
        for args, needles in cases:
            with self.subTest(args=args):
                self.assertOneLineError(sched(*args), 2, *needles)

    def test_a_malformed_sim_config_is_a_clear_error(self):
        self.assertOneLineError(sched("--devices", "gpu0,CPU", env={"BK_SIM_DEVICES": "gpu0:ops=frob"}), 3,
                                "'gpu0'", "plugin sim failed", "'frob'")


class RunAgainstTheReference(CliTestCase):
    """--run computes on the chosen devices and compares the outputs with the float64 reference."""

    def test_split_graph_matches_the_reference(self):
        async_sims = {"BK_SIM_DEVICES": "gpu0:ops=mul_mat+add,async=yes;gpu1:async=yes,events=no"}
        for graph, env in [("mlp", SIM_ENV), ("attention", SIM_ENV), ("transformer", SIM_ENV),
                           ("transformer", async_sims)]:
            with self.subTest(graph=graph, sims=env["BK_SIM_DEVICES"]):
                result = sched("--graph", graph, "--layers", "2", "--hidden", "64", "--batch", "4",
                               "--devices", "gpu0,gpu1", "--weights-split", "0.5,0.3,0.2", "--copies", "2",
                               "--run", "--json", env=env)
                doc = self.assertJsonOutput(result, "bk.sched.v2.json")
                self.assertTrue(doc["run"]["ok"])
                for out in doc["run"]["outputs"]:
                    self.assertLessEqual(out["normalized_error"], doc["run"]["limit"])

    def test_a_device_with_wrong_results_fails_the_run(self):
        # The simulated fault adds 1 + |x| to element 0 of every f32 node gpu0 computes.
        result = sched("--graph", "mlp", "--layers", "1", "--hidden", "64", "--batch", "4", "--devices", "gpu0",
                       "--weights-on", "gpu0", "--run", "--json", env={"BK_SIM_DEVICES": "gpu0:fault=wrong_results"})
        self.assertEqual(result.returncode, 1, result.stderr)
        doc = json.loads(result.stdout)
        validate(doc, "bk.sched.v2.json")
        self.assertEqual(doc["run"]["reference"], "float64")
        self.assertFalse(doc["run"]["ok"])
        self.assertGreater(doc["run"]["outputs"][0]["normalized_error"], doc["run"]["limit"])

    def test_a_graph_split_between_vulkan_and_the_cpu_matches_the_reference(self):
        listing = run("devices", "--json")
        vulkan = [d["name"] for d in json.loads(listing.stdout)["devices"] if d["name"].startswith("Vulkan")]
        if not vulkan:
            self.skipTest("no Vulkan device here (lavapipe gives one: mesa-vulkan-drivers)")
        result = sched("--graph", "transformer", "--layers", "2", "--hidden", "64", "--batch", "4", "--devices",
                       f"{vulkan[0]},CPU", "--weights-split", "0.5,0.5", "--copies", "2", "--run", "--json",
                       env=FAST_ASAN)
        doc = self.assertJsonOutput(result, "bk.sched.v2.json")
        self.assertTrue(doc["run"]["ok"])
        backends = {split["backend"] for split in doc["splits"]}
        self.assertEqual(backends, {vulkan[0], "CPU"}, "both devices must compute part of the graph")
        self.assertGreater(doc["totals"]["copies"], 0)


if __name__ == "__main__":
    unittest.main()
