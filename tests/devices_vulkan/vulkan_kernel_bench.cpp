// SPDX-License-Identifier: MIT
// A kernel benchmark for Vulkan0 next to the built-in CPU device (not a test): mul_mat GFLOP/s
// per weight dtype and shape, add bandwidth (the fast path and the plain per-element kernel)
// and, as the ceiling add is measured against, the same bytes through a buffer copy (vkCmdCopyBuffer on
// Vulkan, memcpy on the CPU). Each case runs one warm-up (which also creates the pipeline) and then `reps`
// compute + synchronize rounds; the median round is reported, with the fastest in brackets. Both devices run
// every case in the same process, one after the other, so their numbers are side by side.
//
//   export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json MESA_SHADER_CACHE_DISABLE=true
//   build/bin/vulkan_kernel_bench [--big] [--reps R] [--vulkan-only] [--only TEXT]   the table
//   build/bin/vulkan_kernel_bench M N K [reps]                           one mul_mat shape, every dtype
//   build/bin/vulkan_kernel_bench [--reps R] --profile transformer       each node alone, slowest first
//
// --big adds mul_mat at 2048^3 (slow on a CPU Vulkan driver); --only TEXT runs the cases whose
// label contains TEXT ("add", "copy", "f16 M=4096").

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bk/ops.h"
#include "probe/model_graphs.h"
#include "vulkan_graph_util.h"
#include "vulkan_test_util.h"

namespace bk::test {
namespace {

// --only: run the cases whose label contains this (all when empty).
std::string g_only;
bool selected(const std::string& label) { return label.find(g_only) != std::string::npos; }

struct Timing {
  double median = 0;
  double best = 0;
};

// One warm-up, then `reps` timed calls of `round`.
Timing time_rounds(const std::function<void()>& round, int reps) {
  round();
  std::vector<double> s;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    round();
    s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  return {n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2, s.front()};
}

Timing time_graph(Backend& backend, Graph& g, int reps) {
  return time_rounds(
      [&] {
        backend.compute(g);
        backend.synchronize();
      },
      reps);
}

void print_row(const Device& dev, const std::string& what, Timing t, double amount, const char* unit) {
  fmt::print("{:8} {:44} {:10.3f} ms  {:8.2f} {} (best {:.2f})\n", dev.name(), what, t.median * 1e3,
             amount / t.median / 1e9, unit, amount / t.best / 1e9);
  std::fflush(stdout);
}

void mul_mat(Device& dev, Backend& backend, DType w, int64_t m, int64_t n, int64_t k, int reps) {
  const std::string label = fmt::format("mul_mat {} M={} N={} K={}", dtype_name(w), m, n, k);
  if (!selected(label)) return;
  GraphBuilder b;
  Tensor& r = ops::mul_mat(b, b.weight(w, {k, m, 1, 1}, "w"), b.input(DType::F32, {k, n, 1, 1}, "x"));
  Graph g = b.build({&r});
  PlacedGraph p(dev, g);
  p.buffer().clear(0x3C);  // small finite values in every dtype
  print_row(dev, label, time_graph(backend, g, reps), 2.0 * static_cast<double>(m * n * k), "GFLOP/s");
}

// add over `rows` rows of `row` elements. One row of a multiple of 4 takes the flat vec4 kernel
// on Vulkan; rows of an odd length take the general one, an element per invocation: the plain
// vector add, measured in the same run as a reference for what the fast path buys.
void add(Device& dev, Backend& backend, int64_t row, int64_t rows, int reps, int64_t b_rows = -1) {
  if (b_rows < 0) b_rows = rows;
  const std::string label =
      rows == 1 ? fmt::format("add f32 n={} (3 x 4 B/element)", row)
                : fmt::format("add f32 {} x {} rows + {} (general kernel)", row, rows, b_rows);
  if (!selected(label)) return;
  GraphBuilder b;
  Tensor& r =
      ops::add(b, b.input(DType::F32, {row, rows, 1, 1}, "a"), b.input(DType::F32, {row, b_rows, 1, 1}, "b"));
  Graph g = b.build({&r});
  PlacedGraph p(dev, g);
  p.buffer().clear(0x3C);
  print_row(dev, label, time_graph(backend, g, reps), 12.0 * static_cast<double>(row * rows), "GB/s   ");
}

// rope over `heads` heads of `dim` for `tokens` tokens (a layer's queries), in place of its
// bytes read and written.
void rope(Device& dev, Backend& backend, int64_t dim, int64_t heads, int64_t tokens, int reps) {
  const std::string label = fmt::format("rope f32 {} x {} heads x {} tokens", dim, heads, tokens);
  if (!selected(label)) return;
  GraphBuilder b;
  Tensor& pos = b.input(DType::I32, {tokens, 1, 1, 1}, "pos");
  Tensor& r = ops::rope(b, b.input(DType::F32, {dim, heads, tokens, 1}, "q"), pos, static_cast<int>(dim),
                        RopeMode::normal, 10000.0f);
  Graph g = b.build({&r});
  PlacedGraph p(dev, g);
  p.buffer().clear(0);  // positions 0 and values 0: finite everywhere
  print_row(dev, label, time_graph(backend, g, reps), 8.0 * static_cast<double>(dim * heads * tokens),
            "GB/s   ");
}

// The same bytes through the device's own copy: copy_tensor_async between two tensors of one
// buffer (vkCmdCopyBuffer on Vulkan); a memcpy where the backend has no such copy (the CPU).
void copy(Device& dev, Backend& backend, int64_t n, int reps) {
  if (!selected("copy")) return;
  GraphBuilder b;
  Tensor& src = b.input(DType::F32, {n, 1, 1, 1}, "src");
  Tensor& dst = ops::scale(b, src, 1.0f);  // only to own memory; never computed here
  Graph g = b.build({&dst});
  PlacedGraph p(dev, g);
  p.buffer().clear(0x3C);
  const bool on_device = backend.copy_tensor_async(backend, src, dst);
  backend.synchronize();
  const Timing t = time_rounds(
      [&] {
        if (on_device) {
          backend.copy_tensor_async(backend, src, dst);
          backend.synchronize();
        } else {
          std::memcpy(dst.data, src.data, src.nbytes());
        }
      },
      reps);
  print_row(dev, fmt::format("{} n={} f32 (read + write)", on_device ? "copy_tensor_async" : "memcpy", n), t,
            8.0 * static_cast<double>(n), "GB/s   ");
}

// Backend::run_peak_kernel: the device's FMA peak, the roof the mul_mat numbers sit under.
void peak(Device& dev, Backend& backend, DType type, int reps) {
  const std::string label = fmt::format("run_peak_kernel {}", dtype_name(type));
  if (!selected(label)) return;
  try {
    double flops = 0;
    const Timing t = time_rounds([&] { flops = backend.run_peak_kernel(type, 2e9); }, reps);
    print_row(dev, label, t, flops, "GFLOP/s");
  } catch (const Error& e) {
    fmt::print("{:8} {:44} unsupported: {}\n", dev.name(), label, e.what());
  }
}

// --profile NAME: every node of a built-in model graph (sched/model_graphs.h, default sizes)
// computed alone, one after the other, each timed as a one-node graph (its dispatch and
// synchronize included), slowest first: where a whole graph's time goes on this device.
void profile(Device& dev, std::string_view name, int reps) {
  Graph g = build_model_graph(name, ModelParams{});
  PlacedGraph p(dev, g);
  p.buffer().clear(0x3C);
  auto backend = dev.init_backend();
  struct Row {
    const Tensor* node;
    double seconds;
  };
  std::vector<Row> rows;
  double total = 0;
  for (Tensor* node : g.nodes()) {
    if (node->is_view()) continue;
    Graph one = Graph::borrow(std::span<Tensor* const>(&node, 1));
    rows.push_back({node, time_graph(*backend, one, reps).median});
    total += rows.back().seconds;
  }
  std::sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.seconds > y.seconds; });
  fmt::print("{} {}: {} nodes computed one at a time, {:.3f} ms in all\n", dev.name(), name, rows.size(),
             total * 1e3);
  for (const Row& r : rows) {
    fmt::print("{:>9.1f} us  {:5.1f}%  {:10} {:20} [{}, {}, {}, {}]\n", r.seconds * 1e6,
               100 * r.seconds / total, op_name(r.node->op), r.node->name, r.node->ne[0], r.node->ne[1],
               r.node->ne[2], r.node->ne[3]);
  }
}

void table(Device& dev, bool big, int reps) {
  auto backend = dev.init_backend();
  for (DType t : {DType::F32, DType::F16}) peak(dev, *backend, t, reps);
  for (DType w : {DType::F32, DType::F16, DType::BF16}) mul_mat(dev, *backend, w, 1024, 1024, 1024, reps);
  if (big) {
    for (DType w : {DType::F32, DType::F16, DType::BF16}) mul_mat(dev, *backend, w, 2048, 2048, 2048, reps);
  }
  for (DType w : {DType::F32, DType::F16, DType::BF16}) mul_mat(dev, *backend, w, 4096, 32, 4096, reps);
  for (DType w : {DType::F32, DType::F16, DType::BF16}) mul_mat(dev, *backend, w, 4096, 1, 4096, reps);
  add(dev, *backend, int64_t{1} << 24, 1, reps);
  add(dev, *backend, 4095, 4097, reps);  // 16.8 M elements, about as many as the flat case
  add(dev, *backend, 4096, 4096, reps, 1);
  add(dev, *backend, 4095, 4097, reps, 1);
  rope(dev, *backend, 128, 32, 512, reps);
  copy(dev, *backend, int64_t{1} << 24, reps);
}

int run(int argc, char** argv) {
  Device* dev = vulkan_device();
  if (dev == nullptr) {
    fmt::print(stderr, "no Vulkan device: {}\n", vulkan_status());
    return 1;
  }
  fmt::print("{} ({})\n", dev->name(), dev->description());
  if (argc > 3 && std::string_view(argv[1]).substr(0, 2) != "--") {
    const int64_t m = std::atoll(argv[1]), n = std::atoll(argv[2]), k = std::atoll(argv[3]);
    const int reps = argc > 4 ? std::atoi(argv[4]) : 5;
    auto backend = dev->init_backend();
    for (DType w : {DType::F32, DType::F16, DType::BF16}) mul_mat(*dev, *backend, w, m, n, k, reps);
    return 0;
  }
  bool big = false, vulkan_only = false;
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--big") {
      big = true;
    } else if (a == "--vulkan-only") {
      vulkan_only = true;
    } else if (a == "--profile" && i + 1 < argc) {
      profile(*dev, argv[++i], reps);
      return 0;
    } else if (a == "--only" && i + 1 < argc) {
      g_only = argv[++i];
    } else if (a == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else {
      fmt::print(
          stderr,
          "usage: vulkan_kernel_bench [--big] [--reps R] [--vulkan-only] [--only TEXT] | M N K [reps] | "
          "[--reps R] --profile GRAPH\n");
      return 2;
    }
  }
  table(*dev, big, reps);
  if (!vulkan_only) {
    Device* cpu = vulkan_registry().find_device("CPU");
    if (cpu == nullptr) {
      fmt::print(stderr, "no CPU device in the registry\n");
      return 1;
    }
    table(*cpu, big, reps);
  }
  return 0;
}

}  // namespace
}  // namespace bk::test

int main(int argc, char** argv) {
  try {
    return bk::test::run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "vulkan_kernel_bench: {}\n", e.what());
    return 1;
  }
}
