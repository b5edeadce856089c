// SPDX-License-Identifier: MIT
// Scheduler benchmark (not a test): split + allocation time of the built-in transformer, the
// work the scheduler repeats for every evaluated graph.
//
//   sched_bench [reps] [--tsv]
//
// --tsv prints machine rows instead, for scripts/bench-sched.sh to set beside ggml's
// (bench/ggml/ggml_sched_bench.cpp): case, layers, nodes, splits, alloc_us, changed_us; the CPU
// alone and the mul_mat+add device with the CPU, at 8, 32 and 64 layers.
//
// Cases: the CPU alone; the CPU and one simulated GPU that runs every op and holds the weights
// (a full offload, one split); and one that runs only mul_mat and add (a split around every
// other op). For each: schedule (the passes and splits), reserve (schedule + memory plan:
// measure mode) and alloc_graph (schedule + plan + placing every tensor in the compute
// buffers, which are allocated once and then reused), all three on the same graph again, which
// the scheduler recognises as unchanged (it keeps its schedule and plan and places the tensors
// again); and "changed": alloc_graph alternating between two graphs (batch 32 and 31), so that
// every call schedules and plans from scratch. Medians over `reps` runs, after a warm-up.
// Weights are declared (Scheduler::assume_buffer), not loaded: scheduling never touches them.
// Then alloc_graph against layers, to show the growth is linear.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bk/cpu.h"
#include "bk/error.h"
#include "bk/scheduler.h"
#include "devices/sim/sim_device.h"
#include "probe/graph_data.h"
#include "probe/model_graphs.h"

namespace {

using Clock = std::chrono::steady_clock;

double median_us(int reps, const std::function<void()>& body) {
  for (int i = 0; i < std::max(10, reps / 20); ++i) body();
  std::vector<double> us(static_cast<size_t>(reps));
  for (double& t : us) {
    const auto start = Clock::now();
    body();
    t = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  }
  std::nth_element(us.begin(), us.begin() + reps / 2, us.end());
  return us[static_cast<size_t>(reps / 2)];
}

bk::ModelParams llama_like(int layers, int batch = 32) {
  bk::ModelParams p;
  p.layers = layers;
  p.hidden = 4096;
  p.heads = 32;
  p.batch = batch;
  p.dtype = bk::DType::F16;
  return p;
}

struct Devices {
  std::unique_ptr<bk::BackendReg> sims = bk::make_sim_reg("gpu0:ops=all;mm:ops=mul_mat+add;host:type=cpu");
  bk::Device& cpu = *bk::cpu_reg().devices().front();
  bk::Device& sim(const char* name) {
    for (bk::Device* d : sims->devices()) {
      if (d->name() == name) return *d;
    }
    throw bk::Error(bk::ErrorCode::not_found, fmt::format("sched_bench: no simulated device {}", name));
  }
};

struct Case {
  std::string name;
  std::vector<bk::Device*> devices;  // priority order, a CPU-type device last
  bk::Device* weights;
};

struct Timing {
  size_t nodes = 0, splits = 0;
  double schedule = 0, reserve = 0, alloc = 0, changed = 0;
};

Timing measure(const Case& c, int layers, int reps) {
  bk::Graph graph = bk::build_model_graph("transformer", llama_like(layers));
  bk::Graph other = bk::build_model_graph("transformer", llama_like(layers, 31));
  std::vector<std::unique_ptr<bk::Backend>> owned;
  std::vector<bk::Backend*> backends;
  for (bk::Device* d : c.devices) backends.push_back(owned.emplace_back(d->init_backend()).get());
  bk::Scheduler sched(backends);
  for (const bk::Graph* g : {&graph, &other}) {
    for (bk::Tensor* w : bk::weights_in_use_order(*g)) sched.assume_buffer(*w, c.weights->buffer_type());
  }
  Timing t;
  t.schedule = median_us(reps, [&] { sched.schedule(graph); });
  t.reserve = median_us(reps, [&] { sched.reserve(graph); });
  t.alloc = median_us(reps, [&] { sched.alloc_graph(graph); });
  bool flip = false;
  t.changed = median_us(reps, [&] { sched.alloc_graph((flip = !flip) ? other : graph); });
  t.nodes = graph.nodes().size();
  t.splits = sched.report().splits.size();
  return t;
}

// The real CPU when its kernels cover the graph, else a simulated CPU-type device that declares
// every op (same decisions, same memory model; supports_op is a set lookup instead).
bk::Device& fallback(Devices& d) {
  bk::Graph graph = bk::build_model_graph("transformer", llama_like(1));
  for (const bk::Tensor* node : graph.nodes()) {
    if (!d.cpu.supports_op(*node)) {
      fmt::print(stderr,
                 "note: the CPU device does not run {} yet; 'CPU' below is a simulated CPU-type device\n",
                 bk::op_name(node->op));
      return d.sim("host");
    }
  }
  return d.cpu;
}

void print_tsv(const std::vector<Case>& cases, int reps) {
  for (int layers : {8, 32, 64}) {
    for (const Case* c : {&cases[0], &cases[2]}) {
      const Timing t = measure(*c, layers, reps);
      fmt::print("{}\t{}\t{}\t{}\t{:.1f}\t{:.1f}\n", c->name, layers, t.nodes, t.splits, t.alloc, t.changed);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2000;
  const bool tsv = argc > 2 && std::string(argv[2]) == "--tsv";
  Devices d;
  bk::Device& cpu = fallback(d);
  const std::vector<Case> cases = {
      {"CPU", {&cpu}, &cpu},
      {"gpu0 (all ops, weights) + CPU", {&d.sim("gpu0"), &cpu}, &d.sim("gpu0")},
      {"mm (mul_mat+add, weights) + CPU", {&d.sim("mm"), &cpu}, &d.sim("mm")},
  };
  if (tsv) {
    print_tsv(cases, reps);
    return 0;
  }
  fmt::print("transformer, 32 layers, hidden 4096, batch 32; median of {} runs, microseconds\n\n", reps);
  fmt::print("{:<34} {:>6} {:>6} {:>9} {:>9} {:>12} {:>9}\n", "backends", "nodes", "splits", "schedule",
             "reserve", "alloc_graph", "changed");
  for (const Case& c : cases) {
    const Timing t = measure(c, 32, reps);
    fmt::print("{:<34} {:>6} {:>6} {:>9.1f} {:>9.1f} {:>12.1f} {:>9.1f}\n", c.name, t.nodes, t.splits,
               t.schedule, t.reserve, t.alloc, t.changed);
  }
  fmt::print("\nalloc_graph against layers (gpu0 + CPU), us per node\n{:>6} {:>6} {:>12} {:>9}\n", "layers",
             "nodes", "alloc_graph", "changed");
  for (int layers : {8, 16, 27, 32, 64}) {
    const Timing t = measure(cases[1], layers, std::max(1, reps / 2));
    const auto nodes = static_cast<double>(t.nodes);
    fmt::print("{:>6} {:>6} {:>12.3f} {:>9.3f}\n", layers, t.nodes, t.alloc / nodes, t.changed / nodes);
  }
  return 0;
}
