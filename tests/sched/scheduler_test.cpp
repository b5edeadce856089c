// SPDX-License-Identifier: MIT
// The scheduler end to end on hand-built graphs: exact decisions, splits, copies, the decision
// record, memory. Parametrized over the fallback: the real CPU (tests skip, saying why, while
// it lacks a kernel they need) and "host", a simulated CPU-type device that declares every op.
#include "bk/scheduler.h"
#include "sched/scheduler_impl.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "bk/error.h"
#include "bk/ops.h"
#include "bk/sched_report.h"
#include "sim_fixture.h"
#include "thrown.h"

namespace bk {
namespace {

constexpr const char* kSims =
    "gpu0:ops=mul_mat+add,offload=mul_mat,offload_min_batch=8;gpu1:ops=all;host:type=cpu,ops=all;"
    "small:type=cpu,mem=1MiB";

class SchedulerTest : public ::testing::TestWithParam<const char*> {
 protected:
  std::string fallback() const { return GetParam(); }
  // Skips unless the fallback runs every node in `nodes`.
  bool fallback_runs(std::initializer_list<const Tensor*> nodes) {
    for (const Tensor* n : nodes) {
      if (!sims_.device(fallback()).supports_op(*n)) return false;
    }
    return true;
  }
  std::vector<Backend*> backends(std::initializer_list<std::string_view> gpus) {
    std::vector<Backend*> out;
    for (std::string_view g : gpus) out.push_back(&sims_.backend(g));
    out.push_back(&sims_.backend(fallback()));
    return out;
  }
  Buffer& place(Tensor& t, std::string_view device) {
    buffers_.push_back(sims_.device(device).buffer_type().alloc(t.nbytes()));
    buffers_.back()->place_tensor(t, 0);
    return *buffers_.back();
  }

  test::SimDevices sims_{kSims};
  std::vector<std::unique_ptr<Buffer>> buffers_;
};

#define SKIP_UNLESS_FALLBACK_RUNS(...)                     \
  if (!fallback_runs({__VA_ARGS__}))                       \
  GTEST_SKIP() << "the CPU device does not support an op " \
                  "this test places on it"

// x -> h = w1 x (gpu0) -> n = rms_norm (fallback) -> o = w2 n (gpu0) -> r = o + h (gpu0)
struct TwoMatmuls {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {64, 8, 1, 1}, "x");
  Tensor& w1 = g.weight(DType::F32, {64, 64, 1, 1}, "w1");
  Tensor& w2 = g.weight(DType::F32, {64, 64, 1, 1}, "w2");
  Tensor& h = named(ops::mul_mat(g, w1, x), "h");
  Tensor& n = named(ops::rms_norm(g, h, 1e-5f), "n");
  Tensor& o = named(ops::mul_mat(g, w2, n), "o");
  Tensor& r = named(ops::add(g, o, h), "r");
  Graph graph = g.build({&r});

  static Tensor& named(Tensor& t, const char* name) {
    t.name = name;
    return t;
  }
};

const NodeReport& node(const SchedReport& report, const Tensor& t) {
  for (const NodeReport& n : report.nodes) {
    if (n.tensor == &t) return n;
  }
  ADD_FAILURE() << "no node " << t.name;
  return report.nodes.front();
}

TEST_P(SchedulerTest, SplitsTwoMatmulsAroundANorm) {
  TwoMatmuls m;
  SKIP_UNLESS_FALLBACK_RUNS(&m.n);
  place(m.w1, "gpu0");
  place(m.w2, "gpu0");
  Scheduler sched(backends({"gpu0"}));
  sched.reserve(m.graph);
  const SchedReport report = sched.report();

  EXPECT_EQ(node(report, m.h).backend, 0);
  EXPECT_EQ(node(report, m.h).cause, Cause::weight);
  EXPECT_EQ(node(report, m.n).backend, 1);
  EXPECT_EQ(node(report, m.n).cause, Cause::fallback);
  ASSERT_EQ(node(report, m.n).passed_over.size(), 1u);
  EXPECT_EQ(node(report, m.n).passed_over[0].reason, PassReason::unsupported_op);
  EXPECT_EQ(node(report, m.o).cause, Cause::weight);
  EXPECT_EQ(node(report, m.r).backend, 0);
  EXPECT_EQ(node(report, m.r).cause, Cause::expand_down);
  EXPECT_NE(node(report, m.r).sentence.find("'o'"), std::string::npos);

  ASSERT_EQ(report.splits.size(), 3u);
  const int b[] = {0, 1, 0};
  const Tensor* copied[] = {&m.x, &m.h, &m.n};
  for (size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(report.splits[s].backend, b[s]) << s;
    ASSERT_EQ(report.splits[s].inputs.size(), 1u) << s;
    EXPECT_EQ(report.splits[s].inputs[0].tensor, copied[s]) << s;
    EXPECT_EQ(report.splits[s].inputs[0].bytes, 2048u);
    EXPECT_EQ(report.splits[s].inputs[0].to, b[s]);
  }
  EXPECT_EQ(report.splits[2].first_node, 2);
  EXPECT_EQ(report.splits[2].last_node, 3);
  EXPECT_EQ(report.copies, 3u);
  EXPECT_EQ(report.bytes_copied, 3 * 2048u);
  // gpu0: copies of x and n, h (kept alive for r), o, and r in place over o.
  EXPECT_EQ(report.compute_buffer_bytes[0], 4 * 2048u);
  EXPECT_EQ(report.compute_buffer_bytes[1], 3 * 2048u);  // x, h's copy, n
}

TEST_P(SchedulerTest, OffloadsHostWeightMatmulsAndCopiesTheWeight) {
  test::MatmulStart mm(64, 64, 8);
  auto& [g, x, w, h] = mm;
  Tensor& o = ops::add(g, h, h);
  Graph graph = g.build({&o});
  place(w, "CPU");
  Scheduler sched({&sims_.backend("gpu0"), &sims_.backend("CPU")});
  const std::vector<size_t> sizes = sched.reserve(graph);
  const SchedReport report = sched.report();
  EXPECT_EQ(node(report, h).backend, 0);
  EXPECT_EQ(node(report, h).cause, Cause::offload);
  EXPECT_EQ(node(report, o).cause, Cause::expand_down);
  ASSERT_EQ(report.splits.size(), 1u);
  ASSERT_EQ(report.splits[0].inputs.size(), 2u);
  EXPECT_EQ(report.bytes_copied, w.nbytes() + x.nbytes());
  // gpu0: the copies of w and x, and h, which o overwrites in place.
  EXPECT_EQ(sizes[0], w.nbytes() + 2 * x.nbytes());
  EXPECT_EQ(sizes[1], x.nbytes());
}

TEST_P(SchedulerTest, NoOffloadKeepsTheWeightReaderOnTheCpuAndSaysWhy) {
  test::MatmulStart mm(64, 64, 8);
  auto& [g, x, w, h] = mm;
  Graph graph = g.build({&h});
  if (!sims_.device("CPU").supports_op(h)) GTEST_SKIP() << "the CPU device does not support mul_mat";
  place(w, "CPU");
  Scheduler sched({&sims_.backend("gpu0"), &sims_.backend("CPU")}, {.offload = false, .copies = 1});
  sched.schedule(graph);
  const SchedReport report = sched.report();
  EXPECT_EQ(node(report, h).backend, 1);
  EXPECT_EQ(node(report, h).cause, Cause::weight);
  ASSERT_EQ(node(report, h).passed_over.size(), 1u);
  EXPECT_EQ(node(report, h).passed_over[0].reason, PassReason::offload_disabled);
  EXPECT_TRUE(report.splits[0].inputs.empty());
}

TEST_P(SchedulerTest, UnsupportedDtypeIsNamedAsSuch) {
  test::SimDevices sims("gpu0:ops=mul_mat,types=f32");
  test::MatmulStart mm(64, 64, 8, DType::F16);
  auto& [g, x, w, h] = mm;
  Graph graph = g.build({&h});
  SKIP_UNLESS_FALLBACK_RUNS(&h);
  Scheduler sched({&sims.backend("gpu0"), &sims_.backend(fallback())});
  sched.schedule(graph);
  const SchedReport report = sched.report();
  ASSERT_EQ(node(report, h).passed_over.size(), 1u);
  EXPECT_EQ(node(report, h).passed_over[0].reason, PassReason::unsupported_type);
  EXPECT_NE(node(report, h).passed_over[0].detail.find("types=f32"), std::string::npos);
}

TEST_P(SchedulerTest, PinsOverrideWeightsAndAreReported) {
  TwoMatmuls m;
  SKIP_UNLESS_FALLBACK_RUNS(&m.n, &m.r);
  place(m.w1, "gpu0");
  place(m.w2, "gpu0");
  Scheduler sched(backends({"gpu0"}));
  sched.pin(m.r, 1);
  sched.schedule(m.graph);
  const SchedReport report = sched.report();
  EXPECT_EQ(node(report, m.r).backend, 1);
  EXPECT_EQ(node(report, m.r).cause, Cause::pinned);
  EXPECT_EQ(node(report, m.r).passed_over[0].reason, PassReason::pinned_elsewhere);
  EXPECT_EQ(report.splits.size(), 4u);
}

TEST_P(SchedulerTest, ReserveMeasuresWithoutAllocating) {
  TwoMatmuls m;
  SKIP_UNLESS_FALLBACK_RUNS(&m.n);
  place(m.w1, "gpu0");
  place(m.w2, "gpu0");
  Device& gpu0 = sims_.device("gpu0");
  const size_t free_before = gpu0.memory().free;
  Scheduler sched(backends({"gpu0"}));
  const std::vector<size_t> sizes = sched.reserve(m.graph);
  EXPECT_EQ(gpu0.memory().free, free_before);
  EXPECT_EQ(m.h.data, nullptr);
  sched.alloc_graph(m.graph);
  EXPECT_EQ(gpu0.memory().free, free_before - sizes[0]);
  EXPECT_EQ(&m.h.buffer->type(), &gpu0.buffer_type());
  EXPECT_EQ(&m.n.buffer->type(), &sims_.device(fallback()).buffer_type());
  EXPECT_EQ(&sched.impl().input_copy(0, 0).buffer->type(), &gpu0.buffer_type());
}

TEST_P(SchedulerTest, PipelineCopiesAreSeparateTensors) {
  TwoMatmuls m;
  SKIP_UNLESS_FALLBACK_RUNS(&m.n);
  place(m.w1, "gpu0");
  place(m.w2, "gpu0");
  Scheduler sched(backends({"gpu0"}), {.offload = true, .copies = 3});
  const std::vector<size_t> sizes = sched.reserve(m.graph);
  EXPECT_EQ(sizes[0], 4 * 2048u + 2 * 2 * 2048u);  // two more copies of x and of n
  sched.alloc_graph(m.graph);
  EXPECT_NE(sched.impl().input_copy(0, 0).data, sched.impl().input_copy(0, 1).data);
  EXPECT_NE(sched.impl().input_copy(0, 1).data, sched.impl().input_copy(0, 2).data);
}

TEST_P(SchedulerTest, ComputeRefusesWeightsThatAreOnlyAssumed) {
  TwoMatmuls m;
  SKIP_UNLESS_FALLBACK_RUNS(&m.n);
  Scheduler sched(backends({"gpu0"}));
  sched.assume_buffer(m.w1, sims_.device("gpu0").buffer_type());
  sched.assume_buffer(m.w2, sims_.device("gpu0").buffer_type());
  sched.reserve(m.graph);
  EXPECT_EQ(sched.report().nodes[0].cause, Cause::weight);
  const Error e =
      test::thrown_by([&] { sched.compute(m.graph); }, "computed with weights that have no memory");
  EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  EXPECT_NE(std::string(e.what()).find("' has no memory: it was only assumed"), std::string::npos)
      << e.what();
}

TEST_P(SchedulerTest, HasNoLimitOnSplitsOrBackends) {
  std::string config;
  for (int i = 0; i < 40; ++i) config += fmt::format("g{}:ops=add;", i);
  test::SimDevices many(config);
  GraphBuilder g;
  Tensor* t = &g.input(DType::F32, {16, 1, 1, 1}, "x");
  std::vector<Tensor*> adds;
  for (int i = 0; i < 600; ++i) {
    adds.push_back(t = &ops::add(g, *t, *t));
    t = &ops::rms_norm(g, *t, 1e-5f);
  }
  Graph graph = g.build({t});
  SKIP_UNLESS_FALLBACK_RUNS(t);
  std::vector<Backend*> list;
  for (int i = 0; i < 40; ++i) list.push_back(&many.backend(fmt::format("g{}", i)));
  list.push_back(&sims_.backend(fallback()));
  Scheduler sched(list);
  for (int i = 0; i < 600; ++i) sched.pin(*adds[static_cast<size_t>(i)], static_cast<size_t>(i % 40));
  sched.reserve(graph);
  EXPECT_EQ(sched.impl().split_plan().splits.size(), 1200u);
  EXPECT_EQ(sched.impl().split_plan().inputs.size(), 1200u);  // each split copies its one input in
}

TEST_P(SchedulerTest, OutOfMemoryOnTheComputeBufferIsAnError) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {1 << 16, 4, 1, 1}, "x");  // 1 MiB
  Graph graph = g.build({&ops::add(g, x, x)});
  Scheduler sched({&sims_.backend("small")});
  const Error e = test::thrown_by([&] { sched.alloc_graph(graph); }, "2 MiB fit into 1 MiB");
  EXPECT_EQ(e.code(), ErrorCode::out_of_memory);
}

INSTANTIATE_TEST_SUITE_P(Fallback, SchedulerTest, ::testing::Values("host", "CPU"));

TEST(SchedulerSetup, RejectsBadBackendLists) {
  test::SimDevices sims(kSims);
  EXPECT_THROW(Scheduler({}), Error);
  EXPECT_THROW(Scheduler({&sims.backend("gpu0")}), Error);  // the last must be a CPU device
  EXPECT_THROW(Scheduler({&sims.backend("CPU"), &sims.backend("CPU")}), Error);
  EXPECT_THROW(Scheduler({&sims.backend("CPU")}, {.offload = true, .copies = 0}), Error);
  Scheduler ok({&sims.backend("gpu0"), &sims.backend("CPU")});
  GraphBuilder g;
  EXPECT_THROW(ok.pin(g.input(DType::F32, {1, 1, 1, 1}, "x"), 2), Error);
}

}  // namespace
}  // namespace bk
