"""bkctl sched --model: memory plans of GGUF models (bk.plan/v1) from the fixtures ggml wrote.

Plans that must fit or not use simulated GPUs (BK_SIM_DEVICES) with known free memory; the CPU's
free memory is this machine's, so a test that involves it accepts either verdict and checks that
the exit code, the status and the numbers agree.
"""

import json
import os
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bkctl_cli import FAST_ASAN, CliTestCase, load_schema, run, validate  # noqa: E402

GGUF = os.environ.get("BK_GGUF_DIR", "")
LLAMA_70B = os.path.join(GGUF, "llama-3-70b-q4_k_m.meta.gguf")
LLAMA_8B = os.path.join(GGUF, "llama-3-8b-q4_k_m.meta.gguf")
GIB = 1 << 30


def sched(*args, sims=None):
    return run("sched", *args, env={"BK_SIM_DEVICES": sims} if sims else None)


def validate_plan(test, result):
    """A plan document: valid bk.plan/v1, its schedule valid against bk.sched/v2, and an exit code that
    agrees with its status."""
    document = json.loads(result.stdout)
    validate(document, "bk.plan.v1.json")
    sched_schema = load_schema("bk.sched.v2.json")
    for key in ("nodes", "leafs", "splits", "totals", "idle_backends"):
        part = dict(sched_schema["properties"][key], **{"$defs": sched_schema["$defs"]})
        validate(document["schedule"][key], None, schema=part)
    test.assertEqual(result.returncode, 0 if document["status"] == "fits" else 4, result.stderr)
    test.assertEqual(document["status"] == "fits", all(d["fits"] for d in document["devices"]))
    for d in document["devices"]:
        test.assertEqual(d["needed_bytes"], d["weights_bytes"] + d["kv_cache_bytes"] + d["compute_bytes"])
        test.assertEqual(d["headroom_bytes"], d["free_bytes"] - d["needed_bytes"] - document["request"]["margin_bytes"])
        test.assertEqual(d["fits"], d["headroom_bytes"] >= 0)
    return document


def kv_bytes(model, ctx):
    return 2 * model["layers"] * ctx * model["kv_heads"] * model["head_dim"] * 2


class Plans(CliTestCase):
    def test_70b_on_the_cpu_matches_the_arithmetic(self):
        result = sched("--model", LLAMA_70B, "--devices", "CPU", "--fit", "--json")
        plan = validate_plan(self, result)
        model = plan["model"]
        self.assertEqual((model["layers"], model["embedding"], model["kv_heads"], model["head_dim"]), (80, 8192, 8, 128))
        self.assertTrue(model["header_only"])
        self.assertAlmostEqual(model["weights_bytes"] / GIB, 39.55, places=2)
        self.assertEqual(plan["request"]["context"], 4096)  # the default: at most 4096
        self.assertEqual(plan["totals"]["weights_bytes"], model["weights_bytes"])
        self.assertEqual(plan["totals"]["kv_cache_bytes"], kv_bytes(model, 4096))
        cpu = plan["devices"][0]
        self.assertEqual(cpu["layers"], list(range(80)))
        self.assertTrue(cpu["output_layer"] and cpu["token_embedding"])
        self.assertGreater(plan["totals"]["plan_seconds"], 0)  # its speed: docs/performance.md
        if plan["status"] == "does_not_fit":
            self.assertIn("CPU needs", plan["advice"][0])

    def test_8b_fits_a_gpu_whole_and_the_context_sizes_the_kv_cache(self):
        result = sched("--model", LLAMA_8B, "--devices", "gpu0,CPU", "--ctx", "8192", "--fit", "--json",
                       sims="gpu0:type=gpu,mem=16GiB")
        plan = validate_plan(self, result)
        gpu = plan["devices"][0]
        self.assertEqual(gpu["layers"], list(range(32)))
        self.assertTrue(gpu["output_layer"])
        self.assertEqual(gpu["kv_cache_bytes"], kv_bytes(plan["model"], 8192))
        self.assertTrue(gpu["fits"])
        self.assertTrue(plan["devices"][1]["token_embedding"])

    def test_fit_splits_the_70b_over_two_gpus_from_the_top(self):
        result = sched("--model", LLAMA_70B, "--devices", "gpu0,gpu1,CPU", "--fit", "--json",
                       sims="gpu0:type=gpu,mem=24GiB;gpu1:type=gpu,mem=16GiB")
        plan = validate_plan(self, result)
        gpu0, gpu1, cpu = plan["devices"]
        self.assertTrue(gpu0["fits"] and gpu1["fits"])
        self.assertTrue(gpu0["output_layer"])
        self.assertEqual(gpu0["layers"][-1], 79)
        self.assertEqual(gpu1["layers"][-1] + 1, gpu0["layers"][0])
        self.assertEqual(sorted(cpu["layers"] + gpu1["layers"] + gpu0["layers"]), list(range(80)))
        backends = {n["backend"] for n in plan["schedule"]["nodes"]}
        self.assertEqual(backends, {"gpu0", "gpu1", "CPU"})

    def test_what_does_not_fit_says_what_would(self):
        result = sched("--model", LLAMA_8B, "--devices", "gpu0,CPU", "--ctx", "32768", "--json",
                       sims="gpu0:type=gpu,mem=8GiB")
        plan = validate_plan(self, result)
        self.assertEqual(plan["status"], "does_not_fit")
        self.assertEqual(plan["request"]["placement"], "first_device")
        advice = "\n".join(plan["advice"])
        self.assertIn("gpu0 needs", advice)
        self.assertIn("--fit", advice)
        self.assertIn("--ctx", advice)
        self.assertIn("does not fit", result.stderr)

    def test_text_fits_80_columns_and_names_every_part(self):
        result = sched("--model", LLAMA_70B, "--devices", "gpu0,CPU", "--fit", sims="gpu0:type=gpu,mem=24GiB")
        self.assertIn(result.returncode, (0, 4), result.stderr)
        for needed in ("weights", "KV cache", "compute", "free", "gpu0", "split"):
            self.assertIn(needed, result.stdout)
        for line in result.stdout.splitlines():
            self.assertLessEqual(len(line), 80, line)

    def test_weights_split_places_layers_by_bytes(self):
        result = sched("--model", LLAMA_8B, "--devices", "gpu0,gpu1,CPU", "--weights-split", "0.5,0.5,0", "--json",
                       sims="gpu0:type=gpu,mem=64GiB;gpu1:type=gpu,mem=64GiB")
        plan = validate_plan(self, result)
        self.assertEqual(plan["request"]["placement"], "split")
        gpu0, gpu1, cpu = plan["devices"]
        self.assertEqual(gpu0["layers"][0], 0)
        self.assertEqual(gpu0["layers"][-1] + 1, gpu1["layers"][0])
        self.assertTrue(gpu1["output_layer"])
        self.assertEqual(cpu["layers"], [])
        self.assertLess(abs(gpu0["weights_bytes"] - gpu1["weights_bytes"]), 0.1 * gpu0["weights_bytes"])


TINY = {name: os.path.join(GGUF, f"tiny-llama-{name}.gguf") for name in ("q8_0", "q4_0", "q4_k_m")}
QUICK = ("--pp", "32", "--tg", "4", "--budget", "50ms", "--warmup", "1")


def bench(*args, sims=None, env=None):
    extra = dict(env or {})
    if sims:
        extra["BK_SIM_DEVICES"] = sims
    return run("bench", *args, env=extra)


def has_device(name):
    document = json.loads(run("devices", "--json").stdout)
    return any(d["name"] == name for d in document["devices"])


class BenchModel(CliTestCase):
    def assert_checked_run(self, device, model, *options):
        result = bench("--device", device, "--model", model, "--check", "--json", *QUICK, *options,
                       env=FAST_ASAN if device.startswith("Vulkan") else None)
        document = self.assertJsonOutput(result, "bk.bench.v1.json")
        tests = document["devices"][0]["tests"]
        self.assertEqual([t["id"] for t in tests],
                         [f"pp/{os.path.basename(model)[:-5]}/32", f"tg/{os.path.basename(model)[:-5]}/4"])
        for t in tests:
            self.assertEqual((t["status"], t["unit"], t["group"]), ("ok", "tok/s", "model"), t["reason"])
            self.assertLess(t["check"]["nmse"], t["check"]["limit"])
            self.assertGreater(t["median"], 0)
            self.assertIn(device, [m["device"] for m in t["memory"]])
            # Every layer runs on the benchmarked device; only the embedding's get_rows is the CPU's.
            on_device = sum(s["nodes"] for s in t["splits"] if s["device"] == device)
            self.assertGreater(on_device, 0.9 * sum(s["nodes"] for s in t["splits"]))
        return tests

    def test_cpu_computes_every_tiny_model_within_the_limit(self):
        for model in TINY.values():
            for t in self.assert_checked_run("CPU", model):
                # The CPU reads the weights in place from the file: all of them, nothing copied.
                [cpu] = t["memory"]
                self.assertGreater(cpu["mapped_bytes"], 0.9 * os.path.getsize(model))
                self.assertLessEqual(cpu["mapped_bytes"], os.path.getsize(model))
                self.assertGreater(cpu["bytes"], cpu["mapped_bytes"])  # the KV cache, the compute buffer

    def test_no_mmap_copies_the_weights_and_computes_the_same(self):
        for t in self.assert_checked_run("CPU", TINY["q4_k_m"], "--no-mmap"):
            [cpu] = t["memory"]
            self.assertEqual(cpu["mapped_bytes"], 0)
            self.assertGreater(cpu["bytes"], 0.9 * os.path.getsize(TINY["q4_k_m"]))

    def test_vulkan_computes_the_quantized_model_within_the_limit(self):
        if not has_device("Vulkan0"):
            self.skipTest("no Vulkan0 on this machine")
        for t in self.assert_checked_run("Vulkan0", TINY["q4_k_m"]):
            # The layers' weights are copied to the GPU; the CPU maps only the token embedding.
            memory = {m["device"]: m for m in t["memory"]}
            self.assertEqual(memory["Vulkan0"]["mapped_bytes"], 0)
            self.assertGreater(memory["CPU"]["mapped_bytes"], 0)
            self.assertLess(memory["CPU"]["mapped_bytes"], 0.5 * os.path.getsize(TINY["q4_k_m"]))

    def test_a_fast_wrong_device_fails_the_check(self):
        result = bench("--device", "gpu0", "--model", TINY["q4_0"], "--check", "--json", *QUICK,
                       sims="gpu0:type=gpu,fault=wrong_results")
        self.assertEqual(result.returncode, 1, result.stderr)
        document = json.loads(result.stdout)
        validate(document, "bk.bench.v1.json")
        for t in document["devices"][0]["tests"]:
            self.assertEqual(t["status"], "error")
            self.assertIn("float64 reference", t["reason"])
            self.assertGreater(t["check"]["nmse"], t["check"]["limit"])

    def test_text_names_memory_and_the_check(self):
        result = bench("--device", "CPU", "--model", TINY["q8_0"], "--check", *QUICK)
        self.assertOk(result)
        self.assertIn("tok/s", result.stdout)
        self.assertIn("memory CPU", result.stdout)
        self.assertIn("mapped from the file", result.stdout)
        self.assertIn("float64 reference: NMSE", result.stdout)
        for line in result.stdout.splitlines():
            self.assertLessEqual(len(line), 80, line)

    def test_bad_model_options_are_usage_errors(self):
        self.assertOneLineError(bench("--device", "CPU", "--model", LLAMA_8B), 2, "header-only")
        self.assertOneLineError(bench("--device", "CPU", "--model", TINY["q8_0"], "--op", "gemv"), 2, "pp and tg")
        self.assertOneLineError(bench("--device", "CPU", "--model", TINY["q8_0"], "--pp", "0"), 2, "--pp")


class Logits(CliTestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.addCleanup(self._dir.cleanup)
        self.out = os.path.join(self._dir.name, "logits.json")

    def test_every_position_with_its_argmax_and_the_check(self):
        result = bench("--device", "CPU", "--model", TINY["q4_k_m"], "--tokens", "1,260,300,42,7", "--logits",
                       self.out, "--check")
        self.assertOk(result)
        self.assertIn("wrote the logits of 5 positions", result.stderr)
        with open(self.out, encoding="utf-8") as f:
            document = json.load(f)
        validate(document, "bk.logits.v1.json")
        self.assertEqual(document["tokens"], [1, 260, 300, 42, 7])
        self.assertTrue(document["check"]["ok"])
        for i, p in enumerate(document["positions"]):
            self.assertEqual((p["position"], p["token"]), (i, document["tokens"][i]))
            self.assertEqual(len(p["logits"]), 512)
            self.assertEqual(p["argmax"], p["logits"].index(max(p["logits"])))
        # Causal: the first position's logits do not depend on what follows it.
        shorter = os.path.join(self._dir.name, "first.json")
        self.assertOk(bench("--device", "CPU", "--model", TINY["q4_k_m"], "--tokens", "1", "--logits", shorter))
        with open(shorter, encoding="utf-8") as f:
            first = json.load(f)["positions"][0]["logits"]
        for a, b in zip(first, document["positions"][0]["logits"]):
            self.assertAlmostEqual(a, b, delta=1e-4 * max(1.0, abs(b)))

    def test_bad_requests_write_nothing(self):
        self.assertOneLineError(bench("--model", TINY["q8_0"], "--tokens", "1,512", "--logits", self.out), 2,
                                "'512'")
        self.assertOneLineError(bench("--model", TINY["q8_0"], "--logits", self.out), 2, "--tokens")
        self.assertOneLineError(bench("--model", TINY["q8_0"], "--tokens", "1",
                                      "--logits", os.path.join(self._dir.name, "no", "dir.json")), 2, "--logits")
        self.assertFalse(os.path.exists(self.out))


def gguf_with_arch(arch):
    def string(s):
        data = s.encode()
        return struct.pack("<Q", len(data)) + data
    return b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + string("general.architecture") + struct.pack("<I", 8) + string(arch)


class BadInput(CliTestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.addCleanup(self._dir.cleanup)

    def write(self, name, data):
        path = os.path.join(self._dir.name, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_a_missing_file_is_a_usage_error(self):
        self.assertOneLineError(sched("--model", os.path.join(self._dir.name, "none.gguf")), 2, "none.gguf")

    def test_not_a_gguf_file_is_named(self):
        self.assertOneLineError(sched("--model", self.write("x.gguf", b"{\"schema\": 1}" * 10)), 2, "x.gguf")

    def test_an_unknown_architecture_is_refused_by_name(self):
        self.assertOneLineError(sched("--model", self.write("g.gguf", gguf_with_arch("gemma2"))), 2, "'gemma2'")

    def test_options_that_do_not_apply_are_refused(self):
        self.assertOneLineError(sched("--model", LLAMA_8B, "--run"), 2, "--run")
        self.assertOneLineError(sched("--model", LLAMA_8B, "--fit", "--weights-on", "CPU"), 2, "--fit")
        self.assertOneLineError(sched("--model", LLAMA_8B, "--ctx", "256", "--batch", "512"), 2, "--batch")
        self.assertOneLineError(sched("--model", LLAMA_8B, "--margin", "lots"), 2, "--margin")


if __name__ == "__main__":
    unittest.main()
