// SPDX-License-Identifier: MIT
// Invariants of every schedule of the built-in graphs, over several device mixes: every node
// runs on a backend that supports it; splits tile the graph; every input a split cannot read
// in place is copied exactly once into that backend, by this split or an earlier one there.
#include <gtest/gtest.h>

#include <set>

#include "bk/scheduler.h"
#include "probe/graph_data.h"
#include "probe/model_graphs.h"
#include "sched/scheduler_impl.h"
#include "sim_fixture.h"

namespace bk {
namespace {

struct Mix {
  const char* name;
  const char* sims;                    // BK_SIM_DEVICES syntax
  std::vector<std::string_view> gpus;  // in priority order; the fallback comes last
  std::vector<double> split;           // weight fractions over gpus + fallback
  DType dtype;
  bool host_weights = false;  // needs weights in host memory: only the real CPU has them
  friend void PrintTo(const Mix& mix, std::ostream* os) { *os << mix.name; }
};

const Mix kMixes[] = {
    {"matmul_only", "gpu0:ops=mul_mat+add", {"gpu0"}, {1, 0}, DType::F32},
    {"half_and_half", "gpu0", {"gpu0"}, {0.5, 0.5}, DType::F32},
    {"three_ways_f16",
     "gpu0:ops=mul_mat+add+mul+silu+rms_norm;gpu1:types=f32+i32",
     {"gpu0", "gpu1"},
     {0.4, 0.3, 0.3},
     DType::F16},
    {"offload",
     "gpu0:ops=mul_mat+add,offload=mul_mat,offload_min_batch=1",
     {"gpu0"},
     {0, 1},
     DType::F32,
     true},
};

int split_of_input(const SplitPlan& plan, int32_t input) {
  for (size_t s = 0; s < plan.splits.size(); ++s) {
    if (input >= plan.splits[s].input_begin && input < plan.splits[s].input_end) return static_cast<int>(s);
  }
  return -1;
}

void check_source(const Scheduler& sched, int split, int32_t id, size_t slot) {
  const SchedState& s = sched.impl().state();
  const SchedGraph& g = sched.impl().sched_graph();
  const SplitPlan& plan = sched.impl().split_plan();
  const int b = plan.splits[static_cast<size_t>(split)].backend;
  const int32_t src = g.sources(id)[slot];
  if (src < 0 || g.storage(src) == g.storage(id)) return;
  int copies = 0;
  for (const SourceRewire& r : plan.rewires) {
    if (r.node != id || r.slot != static_cast<int32_t>(slot)) continue;
    ++copies;
    const SplitInput& input = plan.inputs[static_cast<size_t>(r.input)];
    EXPECT_EQ(input.tensor, src);
    EXPECT_EQ(input.to, b);
    const int owner = split_of_input(plan, r.input);
    EXPECT_LE(owner, split) << "copied after it is read";
    EXPECT_EQ(plan.splits[static_cast<size_t>(owner)].backend, b);
  }
  EXPECT_EQ(copies, s.readable(b, src) ? 0 : 1) << g.tensor(id).name << " reads " << g.tensor(src).name;
}

void check_invariants(const Scheduler& sched) {
  const SchedState& s = sched.impl().state();
  const SchedGraph& g = sched.impl().sched_graph();
  const SplitPlan& plan = sched.impl().split_plan();
  for (int32_t i = 0; i < g.node_count(); ++i) {
    const int32_t id = g.node_id(i);
    ASSERT_TRUE(s.decided(id));
    EXPECT_TRUE(s.supports(id, s.backend(id))) << g.tensor(id).name;
  }
  int32_t next = 0;
  for (size_t k = 0; k < plan.splits.size(); ++k) {
    const Split& split = plan.splits[k];
    EXPECT_EQ(split.begin, next);
    next = split.end;
    for (int32_t i = split.begin; i < split.end; ++i) {
      const int32_t id = g.node_id(i);
      if (op_is_view(g.tensor(id).op)) continue;
      EXPECT_EQ(s.backend(id), split.backend);
      for (size_t slot = 0; slot < kMaxSources; ++slot) check_source(sched, static_cast<int>(k), id, slot);
    }
  }
  EXPECT_EQ(next, g.node_count());
  std::set<std::pair<int32_t, int16_t>> seen;
  for (const SplitInput& input : plan.inputs) {
    EXPECT_TRUE(seen.emplace(input.tensor, input.to).second)
        << "copied twice: " << g.tensor(input.tensor).name;
    EXPECT_NE(input.from, input.to);
  }
}

using Case = std::tuple<Mix, const char*, const char*>;  // mix, graph, fallback

// Every mix on every graph, with the fallback "host" (a simulated CPU-type device that runs every
// op) and the real CPU, except host-weight mixes on "host", whose memory is not host memory.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Mix& mix : kMixes) {
    for (const char* graph : {"mlp", "attention", "transformer"}) {
      if (!mix.host_weights) out.emplace_back(mix, graph, "host");
      out.emplace_back(mix, graph, "CPU");
    }
  }
  return out;
}

class Invariants : public ::testing::TestWithParam<Case> {};

TEST_P(Invariants, HoldForBuiltInGraphs) {
  const auto& [mix, graph_name, fallback] = GetParam();
  ModelParams p;
  p.layers = 3;
  p.hidden = 64;
  p.heads = 4;
  p.batch = 8;
  p.dtype = mix.dtype;
  Graph graph = build_model_graph(graph_name, p);
  if (std::string_view(fallback) == "CPU") BK_SKIP_UNLESS_CPU_RUNS(graph);
  test::SimDevices sims(std::string(mix.sims) + ";host:type=cpu");
  std::vector<Backend*> backends;
  std::vector<Device*> devices;
  for (std::string_view gpu : mix.gpus) backends.push_back(&sims.backend(gpu));
  backends.push_back(&sims.backend(fallback));
  for (Backend* b : backends) devices.push_back(&b->device());
  Scheduler sched(backends);
  const std::vector<Tensor*> weights = weights_in_use_order(graph);
  const std::vector<size_t> device_of = split_by_fractions(weights, mix.split);
  for (size_t i = 0; i < weights.size(); ++i)
    sched.assume_buffer(*weights[i], devices[device_of[i]]->buffer_type());
  const std::vector<size_t> sizes = sched.reserve(graph);
  check_invariants(sched);
  for (size_t b = 0; b < sizes.size(); ++b) {
    bool used = false;
    for (const Split& split : sched.impl().split_plan().splits)
      used = used || split.backend == static_cast<int>(b);
    if (used) {
      EXPECT_GT(sizes[b], 0u) << b;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Mixes, Invariants, ::testing::ValuesIn(cases()), [](const auto& test_info) {
  return std::string(std::get<0>(test_info.param).name) + "_" + std::get<1>(test_info.param) + "_" +
         std::get<2>(test_info.param);
});

}  // namespace
}  // namespace bk
