// SPDX-License-Identifier: MIT
// cuda_perf_check: bk's CUDA device against cuBLAS and cudaMemcpy in the same run, for
// scripts/gpu-check.sh: MUL_MAT in BF16, F16 and F32 beside cublasGemmEx, copies and pinned
// transfers beside cudaMemcpy, and the targets they are held to (ratios, or GB/s for the
// device-to-device copy). Prints a table, and with --json FILE writes the numbers (schema
// "bk.cuda_perf/v2"). Exit 0 when everything ran and every sampled result was right, 1 when a
// result was wrong, 3 when there is no such CUDA device. A missed target is reported, not an
// exit status: the numbers are for docs/performance.md.
//
//   cuda_perf_check [--device CUDA0] [--size 8192] [--copy-bytes 1GiB] [--json FILE]

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "bk/error.h"
#include "bk/ops.h"
#include "bk/registry.h"
#include "bk/units.h"
#include "cuda_perf_baseline.h"

namespace {

using bk::perf::Rate;

struct Options {
  std::string device = "CUDA0";
  int size = 8192;
  size_t copy_bytes = size_t{1} << 30;
  std::string json;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) throw bk::Error(bk::ErrorCode::invalid_argument, fmt::format("{} needs a value", arg));
    const std::string value = argv[++i];
    if (arg == "--device") {
      o.device = value;
    } else if (arg == "--size") {
      o.size = std::stoi(value);
    } else if (arg == "--copy-bytes") {
      o.copy_bytes = bk::parse_size(value).value_or(0);
      if (o.copy_bytes == 0) throw bk::Error(bk::ErrorCode::invalid_argument, "bad --copy-bytes " + value);
    } else if (arg == "--json") {
      o.json = value;
    } else {
      throw bk::Error(bk::ErrorCode::invalid_argument, "unknown option " + arg);
    }
  }
  return o;
}

std::vector<float> random_values(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

std::vector<float> upload(bk::Tensor& t, const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * bk::dtype_size(t.type));
  bk::convert(bk::DType::F32, values.data(), t.type, bytes.data(), values.size());
  t.buffer->set_tensor(t, bytes.data(), 0, bytes.size());
  std::vector<float> stored(values.size());
  bk::convert(t.type, bytes.data(), bk::DType::F32, stored.data(), values.size());
  return stored;
}

std::unique_ptr<bk::Buffer> place(bk::Device& device, bk::Graph& graph) {
  std::vector<bk::Tensor*> owners(graph.leafs().begin(), graph.leafs().end());
  for (bk::Tensor* n : graph.nodes()) {
    if (!n->is_view()) owners.push_back(n);
  }
  bk::BufferType& type = device.buffer_type();
  std::vector<size_t> at;
  size_t size = 0;
  for (const bk::Tensor* t : owners) {
    size = (size + type.alignment() - 1) / type.alignment() * type.alignment();
    at.push_back(size);
    size += type.alloc_size(*t);
  }
  auto buffer = type.alloc(size);
  for (size_t i = 0; i < owners.size(); ++i) buffer->place_tensor(*owners[i], at[i]);
  return buffer;
}

// Median wall time of `work` followed by synchronize, after one warm-up.
template <typename F>
Rate time_backend(bk::Backend& backend, F&& work, int repetitions) {
  work();
  backend.synchronize();
  std::vector<double> times;
  for (int i = 0; i < repetitions; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    backend.synchronize();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  Rate r;
  r.seconds = times[times.size() / 2];
  r.repetitions = repetitions;
  return r;
}

Rate bk_mul_mat(bk::Device& device, bk::DType wtype, int size) {
  bk::GraphBuilder g;
  bk::Tensor& w = g.weight(wtype, {size, size, 1, 1}, "w");
  bk::Tensor& x = g.input(bk::DType::F32, {size, size, 1, 1}, "x");
  bk::Tensor& r = bk::ops::mul_mat(g, w, x);
  bk::Graph graph = g.build({&r});
  auto buffer = place(device, graph);
  const size_t n = size_t(size) * size_t(size);
  const auto wv = upload(w, random_values(n, 21));
  const auto xv = upload(x, random_values(n, 22));
  auto backend = device.init_backend();
  Rate rate = time_backend(
      *backend, [&] { backend->compute(graph); }, wtype == bk::DType::F32 ? 3 : 10);
  rate.value = 2.0 * std::pow(double(size), 3) / rate.seconds / 1e12;
  // x is rounded to the weights' dtype on the device; allow for it.
  const double tolerance = (wtype == bk::DType::BF16 ? 2e-2 : 2e-3) * std::sqrt(double(size));
  rate.checked = true;
  for (int s = 0; s < 16; ++s) {
    const size_t m = (size_t(s) * 7919) % size_t(size), col = (size_t(s) * 104729) % size_t(size);
    double want = 0;
    for (size_t k = 0; k < size_t(size); ++k)
      want += double(wv[m * size_t(size) + k]) * xv[col * size_t(size) + k];
    float got = 0;
    r.buffer->get_tensor(r, &got, (col * size_t(size) + m) * 4, 4);
    if (!(std::abs(got - want) <= tolerance)) {
      rate.checked = false;
      rate.note = fmt::format("r[{}, {}] = {}, want {}", m, col, got, want);
    }
  }
  return rate;
}

// One F32 op over `bytes` per operand; GB/s of bytes read plus written.
Rate bk_stream_op(bk::Device& device, bk::Op op, size_t bytes) {
  const int64_t n = int64_t(bytes / 4);
  bk::GraphBuilder g;
  bk::Tensor& a = g.input(bk::DType::F32, {4096, n / 4096, 1, 1}, "a");
  bk::Tensor& b = g.input(bk::DType::F32, {4096, n / 4096, 1, 1}, "b");
  bk::Tensor& r = op == bk::Op::add ? bk::ops::add(g, a, b) : bk::ops::cont(g, a);
  bk::Graph graph = g.build({&r});
  auto buffer = place(device, graph);
  const auto av = upload(a, random_values(size_t(a.nelements()), 31));
  // cont reads only a: b is not part of its graph and has no memory.
  const auto bv = op == bk::Op::add ? upload(b, random_values(size_t(b.nelements()), 32)) : av;
  auto backend = device.init_backend();
  Rate rate = time_backend(
      *backend, [&] { backend->compute(graph); }, 20);
  const double moved = double(a.nbytes()) * (op == bk::Op::add ? 3.0 : 2.0);
  rate.value = moved / rate.seconds / 1e9;
  rate.checked = true;
  for (size_t i : {size_t(0), size_t(a.nelements() / 3), size_t(a.nelements() - 1)}) {
    float got = 0;
    r.buffer->get_tensor(r, &got, i * 4, 4);
    const float want = op == bk::Op::add ? av[i] + bv[i] : av[i];
    if (got != want) rate.checked = false;
  }
  return rate;
}

// Backend::copy_tensor_async between two tensors of the device; GB/s of bytes read plus written.
Rate bk_d2d(bk::Device& device, size_t bytes) {
  bk::GraphBuilder g;
  bk::Tensor& a = g.input(bk::DType::F32, {int64_t(bytes / 4), 1, 1, 1}, "a");
  bk::Tensor& b = g.input(bk::DType::F32, {int64_t(bytes / 4), 1, 1, 1}, "b");
  bk::Graph graph = g.build({&a, &b});
  auto buffer = place(device, graph);
  buffer->fill(0, 1, buffer->size());
  auto backend = device.init_backend();
  Rate rate = time_backend(
      *backend, [&] { backend->copy_tensor_async(*backend, a, b); }, 20);
  rate.value = 2.0 * double(bytes) / rate.seconds / 1e9;
  rate.checked = true;
  return rate;
}

// Backend::set_tensor_async / get_tensor_async between the device's pinned host buffer type and
// a device tensor; GB/s of bytes moved.
Rate bk_transfer(bk::Device& device, size_t bytes, bool to_device) {
  bk::BufferType* host_type = device.host_buffer_type();
  if (host_type == nullptr)
    throw bk::Error(bk::ErrorCode::unsupported, device.name() + " has no host buffer type");
  bk::GraphBuilder g;
  bk::Tensor& t = g.input(bk::DType::F32, {int64_t(bytes / 4), 1, 1, 1}, "t");
  bk::Graph graph = g.build({&t});
  auto buffer = place(device, graph);
  auto host = host_type->alloc(bytes);
  auto* staging = static_cast<uint8_t*>(host->base());
  for (size_t i = 0; i < bytes; ++i) staging[i] = uint8_t(i * 131 + 7);
  auto backend = device.init_backend();
  Rate rate = time_backend(
      *backend,
      [&] {
        if (to_device) {
          backend->set_tensor_async(t, staging, 0, bytes);
        } else {
          backend->get_tensor_async(t, staging, 0, bytes);
        }
      },
      20);
  rate.value = double(bytes) / rate.seconds / 1e9;
  // The last transfer's bytes, read back the other way through a plain host vector.
  std::vector<uint8_t> check(bytes);
  t.buffer->get_tensor(t, check.data(), 0, bytes);
  rate.checked = std::memcmp(check.data(), staging, bytes) == 0;
  if (!rate.checked) rate.note = "the bytes did not arrive intact";
  return rate;
}

struct Row {
  std::string name;
  std::string unit;
  Rate rate;
};

// A target bk is held to on the GPU (docs/performance.md): `what` is a ratio or a rate, met
// when value >= target.
struct Target {
  std::string what;
  double value;
  double target;
};

int run(const Options& o) {
  bk::Registry& registry = bk::Registry::global();
  bk::Device* device = registry.find_device(o.device);
  if (device == nullptr) {
    bk::BackendReg* reg = registry.find_reg("CUDA");
    std::cerr << fmt::format("no device '{}' (devices: {}; CUDA: {})\n", o.device, registry.device_names(),
                             reg != nullptr ? reg->status() : "plugin not loaded");
    return 3;
  }
  const int ordinal = std::stoi(o.device.substr(4));
  std::vector<Row> rows;
  auto add = [&rows](std::string name, std::string unit, Rate r) {
    rows.push_back({std::move(name), std::move(unit), r});
    std::fprintf(stderr, "cuda_perf_check: measured %s\n", rows.back().name.c_str());  // progress, unbuffered
  };
  const std::string shape = fmt::format("{0}x{0}x{0}", o.size);
  using bk::perf::GemmType;
  const struct {
    const char* name;
    GemmType cublas;
    bk::DType bk;
  } gemms[] = {{"bf16", GemmType::bf16, bk::DType::BF16},
               {"f16", GemmType::f16, bk::DType::F16},
               {"f32", GemmType::f32, bk::DType::F32}};
  std::vector<Target> targets;
  for (const auto& gemm : gemms) {
    const Rate cublas = bk::perf::cublas_gemm(ordinal, gemm.cublas, o.size);
    const Rate ours = bk_mul_mat(*device, gemm.bk, o.size);
    add(fmt::format("cublas_{}_gemm_{}", gemm.name, shape), "TFLOP/s", cublas);
    add(fmt::format("bk_mul_mat_{}_{}", gemm.name, shape), "TFLOP/s", ours);
    targets.push_back({fmt::format("bk {} mul_mat / cuBLAS", gemm.name), ours.value / cublas.value,
                       gemm.bk == bk::DType::F32 ? 0.9 : 0.85});
  }
  const Rate d2d = bk::perf::memcpy_d2d(ordinal, o.copy_bytes);
  add("cudamemcpy_d2d", "GB/s", d2d);
  const Rate bk_copy = bk_d2d(*device, o.copy_bytes);
  add("bk_copy_tensor_d2d", "GB/s", bk_copy);
  targets.push_back({"bk device-to-device copy, GB/s read+written", bk_copy.value, 3800});
  add("bk_cont_f32", "GB/s", bk_stream_op(*device, bk::Op::cont, o.copy_bytes / 2));
  add("bk_add_f32", "GB/s", bk_stream_op(*device, bk::Op::add, o.copy_bytes / 2));
  for (const bool to_device : {true, false}) {
    const char* dir = to_device ? "h2d" : "d2h";
    const Rate memcpy = to_device ? bk::perf::memcpy_h2d_pinned(ordinal, o.copy_bytes / 4)
                                  : bk::perf::memcpy_d2h_pinned(ordinal, o.copy_bytes / 4);
    const Rate ours = bk_transfer(*device, o.copy_bytes / 4, to_device);
    add(fmt::format("cudamemcpy_{}_pinned", dir), "GB/s", memcpy);
    add(fmt::format("bk_{}_pinned", dir), "GB/s", ours);
    targets.push_back({fmt::format("bk {} pinned / cudaMemcpy", dir), ours.value / memcpy.value, 0.8});
  }
  fmt::print("{:<34} {:>12} {:>10} {:>6} {}\n", "test", "value", "unit", "reps", "checked");
  bool all_checked = true;
  nlohmann::json results = nlohmann::json::array();
  for (const Row& r : rows) {
    fmt::print("{:<34} {:>12.2f} {:>10} {:>6} {}{}\n", r.name, r.rate.value, r.unit, r.rate.repetitions,
               r.rate.checked ? "yes" : "NO", r.rate.note.empty() ? "" : " (" + r.rate.note + ")");
    all_checked = all_checked && r.rate.checked;
    results.push_back({{"name", r.name},
                       {"unit", r.unit},
                       {"value", r.rate.value},
                       {"median_s", r.rate.seconds},
                       {"repetitions", r.rate.repetitions},
                       {"checked", r.rate.checked},
                       {"note", r.rate.note}});
  }
  nlohmann::json target_json = nlohmann::json::array();
  for (const Target& t : targets) {
    const bool met = t.value >= t.target;
    fmt::print("{:<48} {:>10.3f}  target >= {}: {}\n", t.what, t.value, t.target, met ? "met" : "NOT met");
    target_json.push_back({{"what", t.what}, {"value", t.value}, {"target", t.target}, {"met", met}});
  }
  if (!o.json.empty()) {
    nlohmann::json doc = {{"schema", "bk.cuda_perf/v2"},
                          {"device",
                           {{"name", device->name()},
                            {"description", device->description()},
                            {"stable_id", device->stable_id()}}},
                          {"size", o.size},
                          {"copy_bytes", o.copy_bytes},
                          {"results", results},
                          {"targets", target_json}};
    std::ofstream(o.json) << doc.dump(2) << "\n";
  }
  return all_checked ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const bk::Error& e) {
    std::cerr << "cuda_perf_check: " << e.what() << "\n";
    return e.code() == bk::ErrorCode::check_failed ? 1 : 5;
  } catch (const std::exception& e) {
    std::cerr << "cuda_perf_check: " << e.what() << "\n";
    return 5;
  }
}
