# SPDX-License-Identifier: MIT
"""The C API (include/bk/bk.h) driven from Python through ctypes, with the standard library alone:
what a binding needs is libbk.so and nothing else.

    python3 capi_ctypes_test.py path/to/libbk.so

ctest passes the library's path; BKCTL (optional) names bkctl, whose `sched --json` must agree
with the C API's report on the same graph: the rendering exists once. BK_SIM_DEVICES with a
'gpu0' that runs mul_mat and add makes the schedule go across two devices.
"""

import ctypes
import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest

LIBRARY = sys.argv.pop(1) if len(sys.argv) > 1 else os.environ.get("BK_LIBRARY", "")

OK, INVALID_ARGUMENT, NOT_FOUND, OUT_OF_MEMORY, UNSUPPORTED = 0, 2, 3, 4, 7
F32 = 0
SIZE_MAX = 2 ** (8 * ctypes.sizeof(ctypes.c_size_t)) - 1


class Caps(ctypes.Structure):
    _fields_ = [("async_", ctypes.c_bool), ("host_buffer", ctypes.c_bool), ("buffer_from_host_ptr", ctypes.c_bool),
                ("events", ctypes.c_bool), ("event_timing", ctypes.c_bool)]


class SchedOptions(ctypes.Structure):
    _fields_ = [("weights_on", ctypes.c_char_p), ("no_offload", ctypes.c_bool), ("copies", ctypes.c_int)]


def load(path):
    """libbk with the signature of every function this test calls."""
    lib = ctypes.CDLL(path)
    handle, out = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
    size, status, text = ctypes.c_size_t, ctypes.c_int, ctypes.c_char_p
    signatures = {
        "bk_status_name": (text, [status]),
        "bk_last_error": (text, []),
        "bk_free_string": (None, [handle]),
        "bk_version_string": (text, []),
        "bk_device_count": (size, []),
        "bk_device_get": (status, [size, out]),
        "bk_device_find": (status, [text, out]),
        "bk_device_name": (text, [handle]),
        "bk_device_type_name": (text, [ctypes.c_int]),
        "bk_device_get_type": (ctypes.c_int, [handle]),
        "bk_device_memory": (status, [handle, ctypes.POINTER(size), ctypes.POINTER(size)]),
        "bk_device_caps_get": (status, [handle, ctypes.POINTER(Caps)]),
        "bk_device_describe_json": (status, [handle, out]),
        "bk_device_buffer_type": (status, [handle, out]),
        "bk_buffer_type_name": (text, [handle]),
        "bk_buffer_alloc": (status, [handle, size, out]),
        "bk_buffer_free": (None, [handle]),
        "bk_buffer_size": (size, [handle]),
        "bk_buffer_write": (status, [handle, size, ctypes.c_void_p, size]),
        "bk_buffer_read": (status, [handle, size, ctypes.c_void_p, size]),
        "bk_buffer_fill": (status, [handle, size, ctypes.c_uint8, size]),
        "bk_graph_new": (status, [out]),
        "bk_graph_free": (None, [handle]),
        "bk_graph_input": (status, [handle, text, ctypes.c_int] + [ctypes.c_int64] * 4 + [out]),
        "bk_graph_weight": (status, [handle, text, ctypes.c_int] + [ctypes.c_int64] * 4 + [out]),
        "bk_graph_op": (status, [handle, text, text, handle, handle, out]),
        "bk_graph_op_f": (status, [handle, text, text, handle, handle, ctypes.c_float, out]),
        "bk_graph_output": (status, [handle, handle]),
        "bk_sched_report_json": (status, [handle, ctypes.POINTER(text), size, ctypes.POINTER(SchedOptions), out]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = restype, argtypes
    return lib


class Bk:
    """A small binding: status codes become exceptions carrying the library's message."""

    class Error(Exception):
        def __init__(self, status, message):
            super().__init__(f"{status}: {message}")
            self.status, self.message = status, message

    def __init__(self, path):
        self.lib = load(path)

    def check(self, status):
        if status != OK:
            raise Bk.Error(status, self.lib.bk_last_error().decode())

    def call(self, name, *args):
        """Calls a function whose last parameter is an out-pointer; returns what it wrote."""
        result = ctypes.c_void_p()
        self.check(getattr(self.lib, name)(*args, ctypes.byref(result)))
        return result.value

    def take_string(self, name, *args):
        """Calls a function that returns a string through char**; frees it with bk_free_string."""
        pointer = self.call(name, *args)
        try:
            return ctypes.string_at(pointer).decode()
        finally:
            self.lib.bk_free_string(pointer)

    def devices(self):
        return [self.call("bk_device_get", i) for i in range(self.lib.bk_device_count())]


# x [64, 8] input, w [64, 64] weight: h = mul_mat(w, x), n = rms_norm(h), out = add(n, h); the
# same graph as a bk.graph/v1 file for bkctl.
GRAPH_FILE = {
    "schema": "bk.graph/v1",
    "tensors": [
        {"name": "x", "kind": "input", "type": "f32", "shape": [64, 8]},
        {"name": "w", "kind": "weight", "type": "f32", "shape": [64, 64]},
        {"name": "h", "op": "mul_mat", "src": ["w", "x"]},
        {"name": "n", "op": "rms_norm", "src": ["h"], "eps": 1e-5},
        {"name": "out", "op": "add", "src": ["n", "h"]},
    ],
    "outputs": ["out"],
}


class CApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not LIBRARY:
            raise SystemExit("give the path of libbk.so as the first argument")
        cls.bk = Bk(LIBRARY)
        cls.lib = cls.bk.lib

    def test_version_matches_the_build(self):
        version = self.lib.bk_version_string().decode()
        self.assertRegex(version, r"^\d+\.\d+\.\d+$")
        if os.environ.get("BK_VERSION"):
            self.assertEqual(version, os.environ["BK_VERSION"])

    def test_devices_are_listed_found_and_described(self):
        devices = self.bk.devices()
        self.assertGreaterEqual(len(devices), 1)
        names = [self.lib.bk_device_name(d).decode() for d in devices]
        self.assertEqual(names[0], "CPU")
        for handle, name in zip(devices, names):
            self.assertEqual(self.bk.call("bk_device_find", name.lower().encode()), handle)
            free, total = ctypes.c_size_t(), ctypes.c_size_t()
            self.bk.check(self.lib.bk_device_memory(handle, ctypes.byref(free), ctypes.byref(total)))
            self.assertLessEqual(free.value, total.value)
            caps = Caps()
            self.bk.check(self.lib.bk_device_caps_get(handle, ctypes.byref(caps)))
            described = json.loads(self.bk.take_string("bk_device_describe_json", handle))
            self.assertEqual(described["name"], name)
            self.assertEqual(described["type"], self.lib.bk_device_type_name(self.lib.bk_device_get_type(handle)).decode())
            self.assertEqual(described["memory"]["total"], total.value)
            self.assertEqual(described["caps"]["host_buffer"], caps.host_buffer)
            self.assertEqual(described["caps"]["events"], caps.events)
            self.assertIsInstance(described["properties"], dict)
            print(f"{name}: {described['description']} ({described['type']}), {total.value} bytes")

    def test_a_buffer_on_every_device_round_trips_bytes(self):
        for device in self.bk.devices():
            name = self.lib.bk_device_name(device).decode()
            buffer_type = self.bk.call("bk_device_buffer_type", device)
            data = bytes((i * 13 + 1) % 256 for i in range(1000))
            buffer = self.bk.call("bk_buffer_alloc", buffer_type, len(data))
            try:
                self.assertEqual(self.lib.bk_buffer_size(buffer), len(data))
                self.bk.check(self.lib.bk_buffer_write(buffer, 0, data, len(data)))
                back = ctypes.create_string_buffer(len(data))
                self.bk.check(self.lib.bk_buffer_read(buffer, 0, back, len(data)))
                self.assertEqual(back.raw, data, name)
                self.bk.check(self.lib.bk_buffer_fill(buffer, 500, 0xEE, 100))
                self.bk.check(self.lib.bk_buffer_read(buffer, 0, back, len(data)))
                self.assertEqual(back.raw, data[:500] + b"\xee" * 100 + data[600:], name)
                # Past the end: refused with the sizes and the device in the message, nothing read.
                with self.assertRaises(Bk.Error) as caught:
                    self.bk.check(self.lib.bk_buffer_read(buffer, 990, back, 20))
                self.assertEqual(caught.exception.status, INVALID_ARGUMENT)
                self.assertIn("[990, 1010)", caught.exception.message)
                self.assertIn("1000 bytes", caught.exception.message)
                self.assertIn(name, caught.exception.message)
                with self.assertRaises(Bk.Error) as caught:
                    self.bk.check(self.lib.bk_buffer_write(buffer, 8, data, SIZE_MAX))
                self.assertIn("past the end", caught.exception.message)
            finally:
                self.lib.bk_buffer_free(buffer)

    def test_errors_are_statuses_with_messages(self):
        with self.assertRaises(Bk.Error) as caught:
            self.bk.call("bk_device_find", b"NoSuchDevice7")
        self.assertEqual(caught.exception.status, NOT_FOUND)
        self.assertIn("'NoSuchDevice7'", caught.exception.message)
        self.assertEqual(self.lib.bk_status_name(NOT_FOUND), b"not_found")
        cpu_type = self.bk.call("bk_device_buffer_type", self.bk.call("bk_device_find", b"CPU"))
        self.assertEqual(self.lib.bk_last_error(), b"", "a success clears the message")
        with self.assertRaises(Bk.Error) as caught:
            self.bk.call("bk_buffer_alloc", cpu_type, SIZE_MAX // 2)
        self.assertIn(caught.exception.status, (OUT_OF_MEMORY, INVALID_ARGUMENT))
        self.assertIn("CPU", caught.exception.message)
        self.assertEqual(self.lib.bk_device_get(0, None), INVALID_ARGUMENT)
        self.assertIn(b"out is NULL", self.lib.bk_last_error())

    def test_the_last_error_belongs_to_its_thread(self):
        self.assertEqual(self.lib.bk_device_find(b"NoSuchDevice7", ctypes.byref(ctypes.c_void_p())), NOT_FOUND)
        seen = []
        thread = threading.Thread(target=lambda: seen.append(self.lib.bk_last_error()))
        thread.start()
        thread.join()
        self.assertEqual(seen, [b""])
        self.assertIn(b"NoSuchDevice7", self.lib.bk_last_error())

    def build_graph(self):
        graph = self.bk.call("bk_graph_new")
        self.addCleanup(self.lib.bk_graph_free, graph)
        x = self.bk.call("bk_graph_input", graph, b"x", F32, 64, 8, 1, 1)
        w = self.bk.call("bk_graph_weight", graph, b"w", F32, 64, 64, 1, 1)
        h = self.bk.call("bk_graph_op", graph, b"mul_mat", b"h", w, x)
        n = self.bk.call("bk_graph_op_f", graph, b"rms_norm", b"n", h, None, 1e-5)
        out = self.bk.call("bk_graph_op", graph, b"add", b"out", n, h)
        self.bk.check(self.lib.bk_graph_output(graph, out))
        with self.assertRaises(Bk.Error) as caught:
            self.bk.call("bk_graph_op", graph, b"add", None, x, w)
        self.assertEqual(caught.exception.status, INVALID_ARGUMENT)
        return graph

    def report(self, graph, devices, weights_on=None):
        names = (ctypes.c_char_p * len(devices))(*[d.encode() for d in devices])
        options = SchedOptions(weights_on.encode() if weights_on else None, False, 0)
        return json.loads(self.bk.take_string("bk_sched_report_json", graph, names, len(devices),
                                              ctypes.byref(options)))

    def test_the_sched_report_is_bkctls(self):
        graph = self.build_graph()
        have_gpu0 = self.lib.bk_device_find(b"gpu0", ctypes.byref(ctypes.c_void_p())) == OK
        devices, weights_on = (["gpu0", "CPU"], "gpu0") if have_gpu0 else (["CPU"], None)
        report = self.report(graph, devices, weights_on)
        self.assertEqual(report["backends"], devices)
        self.assertTrue(report["planned"])
        nodes = {node["name"]: node for node in report["nodes"]}
        self.assertEqual(set(nodes), {"h", "n", "out"})
        self.assertEqual(report["totals"]["nodes"], 3)
        self.assertEqual(sum(entry["nodes"] for entry in report["totals"]["nodes_per_backend"]), 3)
        if have_gpu0:
            self.assertEqual((nodes["h"]["backend"], nodes["h"]["cause"]), ("gpu0", "weight"))
            self.assertEqual(nodes["n"]["backend"], "CPU")
            self.assertIn("unsupported_op", [p["reason"] for p in nodes["n"]["passed_over"]])
        bkctl = os.environ.get("BKCTL")
        if not bkctl:
            print("BKCTL not set: the report is not compared with bkctl sched --json")
            return
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "graph.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(GRAPH_FILE, f)
            args = [bkctl, "sched", "--graph-file", path, "--devices", ",".join(devices), "--json"]
            if weights_on:
                args += ["--weights-on", weights_on]
            result = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        document = json.loads(result.stdout)
        self.assertEqual(document["schema"], "bk.sched/v2")
        for key in ("nodes", "leafs", "splits", "totals", "idle_backends"):
            self.assertEqual(report[key], document[key], key)
        self.assertEqual(report["backends"], [b["name"] for b in document["backends"]])


if __name__ == "__main__":
    unittest.main(verbosity=2)
