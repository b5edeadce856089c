// SPDX-License-Identifier: MIT
// Split graphs compute what the CPU alone computes. Simulated devices run the CPU's kernels,
// so results must agree to the last bit; these tests skip, naming the ops, while the CPU
// device reports it cannot run a node of the graph.
#include <gtest/gtest.h>

#include <memory>

#include "probe/graph_run.h"
#include "probe/model_graphs.h"
#include "sched/scheduler_impl.h"
#include "sim_fixture.h"

namespace bk {
namespace {

struct RunCase {
  const char* name;
  const char* graph;
  const char* sims;
  std::vector<std::string_view> gpus;
  std::vector<double> split;
  int copies;
};

const RunCase kCases[] = {
    {"mlp_matmul_gpu", "mlp", "gpu0:ops=mul_mat+add", {"gpu0"}, {1, 0}, 1},
    {"attention_half", "attention", "gpu0:ops=mul_mat+add+rms_norm+mul", {"gpu0"}, {0.5, 0.5}, 1},
    {"transformer_two_gpus",
     "transformer",
     "gpu0:ops=mul_mat+add;gpu1:ops=all,events=no",
     {"gpu0", "gpu1"},
     {0.4, 0.4, 0.2},
     1},
    {"transformer_pipelined",
     "transformer",
     "gpu0:ops=mul_mat+add+mul+silu;gpu1",
     {"gpu0", "gpu1"},
     {0.5, 0.5, 0},
     2},
    // Asynchronous streams: the scheduler's events, waits, async copies and reader tracking.
    {"transformer_async_pipelined",
     "transformer",
     "gpu0:ops=mul_mat+add+mul+silu,async=yes;gpu1:async=yes",
     {"gpu0", "gpu1"},
     {0.5, 0.5, 0},
     2},
    {"transformer_async_without_events",
     "transformer",
     "gpu0:ops=mul_mat+add,async=yes,events=no;gpu1:async=yes,events=no",
     {"gpu0", "gpu1"},
     {0.4, 0.4, 0.2},
     3},
    {"transformer_async_reading_in_place",
     "transformer",
     "gpu0:ops=mul_mat+add+rms_norm,async=yes,reads=gpu1;gpu1:ops=all,async=yes,reads=gpu0",
     {"gpu0", "gpu1"},
     {0.5, 0.5, 0},
     2},
    {"transformer_offload",
     "transformer",
     "gpu0:ops=mul_mat+add,offload=mul_mat,offload_min_batch=1",
     {"gpu0"},
     {0, 1},
     1},
};

// One case's graph, its devices and a scheduler over them, ready for evaluate_graph.
struct CaseRun {
  explicit CaseRun(const RunCase& c) : graph(build_model_graph(c.graph, small_params())), sims(c.sims) {
    for (std::string_view gpu : c.gpus) backends.push_back(&sims.backend(gpu));
    backends.push_back(&sims.backend("CPU"));
    for (Backend* b : backends) devices.push_back(&b->device());
    device_of = split_by_fractions(weights_in_use_order(graph), c.split);
    sched = std::make_unique<Scheduler>(backends, SchedOptions{.offload = true, .copies = c.copies});
  }

  static ModelParams small_params() {
    ModelParams p;
    p.layers = 2;
    p.hidden = 64;
    p.heads = 4;
    p.batch = 8;
    return p;
  }

  std::vector<std::vector<double>> evaluate(int evaluations) {
    return evaluate_graph(graph, *sched, {devices, device_of, 7, evaluations}, store);
  }

  Graph graph;
  test::SimDevices sims;
  std::vector<Backend*> backends;
  std::vector<Device*> devices;
  std::vector<size_t> device_of;
  std::unique_ptr<Scheduler> sched;
  WeightStore store;
};

// The same graph on the CPU device alone (weights in host memory): what the split must equal bit
// for bit, since simulated devices run the CPU's kernels.
std::vector<std::vector<double>> evaluate_on_cpu_alone(Graph& graph, uint64_t seed) {
  Device& cpu = *cpu_reg().devices().front();
  std::unique_ptr<Backend> backend = cpu.init_backend();
  Scheduler sched({backend.get()});
  Device* devices[] = {&cpu};
  const std::vector<size_t> device_of(weights_in_use_order(graph).size(), 0);
  WeightStore store;
  return evaluate_graph(graph, sched, {devices, device_of, seed, 1}, store);
}

class RunMatchesCpu : public ::testing::TestWithParam<RunCase> {};

TEST_P(RunMatchesCpu, Exactly) {
  const RunCase& c = GetParam();
  CaseRun run(c);
  BK_SKIP_UNLESS_CPU_RUNS(run.graph);
  Graph reference = build_model_graph(c.graph, CaseRun::small_params());
  const auto got = run.evaluate(3);
  const auto want = evaluate_on_cpu_alone(reference, 7);
  EXPECT_GT(run.sched->impl().split_plan().splits.size(), 1u) << "the case should split the graph";
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); ++o) {
    EXPECT_EQ(got[o], want[o]) << "output " << o;
  }
  // compute() left the caller's graph as it was: no source points at a copy.
  for (const Tensor* node : run.graph.nodes()) {
    for (const Tensor* s : node->src) EXPECT_TRUE(s == nullptr || run.graph.find(s->name) == s) << node->name;
  }
}

// compute_profiled: one time per split, each split waited for, and the same results as compute().
TEST_P(RunMatchesCpu, ProfiledEvaluationTimesEverySplitAndComputesTheSame) {
  const RunCase& c = GetParam();
  CaseRun run(c);
  BK_SKIP_UNLESS_CPU_RUNS(run.graph);
  const auto first = run.evaluate(1);
  for (int round = 0; round < c.copies + 1; ++round) {  // every pipeline copy takes a turn
    const std::vector<SplitTime> times = run.sched->compute_profiled(run.graph);
    ASSERT_EQ(times.size(), run.sched->impl().split_plan().splits.size());
    double total = 0;
    for (const SplitTime& t : times) {
      EXPECT_GE(t.copy_s, 0.0);
      EXPECT_GT(t.compute_s, 0.0);
      total += t.copy_s + t.compute_s;
    }
    EXPECT_GT(total, 0.0);
  }
  for (size_t o = 0; o < first.size(); ++o)
    EXPECT_EQ(read_elements(*run.graph.outputs()[o]), first[o]) << "output " << o;
}

// Allocating the same graph again (weights placed anew, in the same buffer types): the second
// time the scheduler records the graph, from the third it keeps its schedule and memory plan and
// only places the tensors again. Every evaluation computes what the first did.
TEST_P(RunMatchesCpu, AllocatingTheSameGraphAgainComputesTheSame) {
  CaseRun run(GetParam());
  BK_SKIP_UNLESS_CPU_RUNS(run.graph);
  const auto first = run.evaluate(1);
  for (int again = 1; again <= 3; ++again) {
    const auto got = run.evaluate(GetParam().copies);
    ASSERT_EQ(got.size(), first.size());
    for (size_t o = 0; o < got.size(); ++o)
      EXPECT_EQ(got[o], first[o]) << "evaluation " << again << ", output " << o;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, RunMatchesCpu, ::testing::ValuesIn(kCases),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

}  // namespace
}  // namespace bk
