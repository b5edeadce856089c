// SPDX-License-Identifier: MIT
// Each scheduler pass alone, on hand-built graphs and simulated devices. "host" is a simulated
// CPU-type device, the fallback, so that these decisions do not need the CPU's kernels.
#include <gtest/gtest.h>

#include "bk/error.h"
#include "bk/ops.h"
#include "sched/passes.h"
#include "sched/splits.h"
#include "sim_fixture.h"
#include "thrown.h"

namespace bk {
namespace {

constexpr const char* kPassSims =
    "gpu0:ops=mul_mat+add+silu;gpu1:ops=all,reads=gpu0+host;host:type=cpu;"
    "off:ops=mul_mat,offload=mul_mat,offload_min_batch=1";

class Passes : public ::testing::Test {
 protected:
  void prepare(Graph& graph, std::initializer_list<std::string_view> names, SchedOptions options = {},
               std::vector<TensorPin> pins = {}) {
    backends_.clear();
    for (Backend* b : sims_.backends(names))
      backends_.push_back({b, &b->device(), &b->device().buffer_type()});
    sg_.build(graph);
    pins_ = std::move(pins);
    state_.prepare(sg_, backends_, options, pins_, {});
  }
  int32_t id(const Tensor& t) const { return sg_.find(&t); }
  const Decision& decision(const Tensor& t) const { return state_.decision[static_cast<size_t>(id(t))]; }
  Buffer& place(Tensor& t, std::string_view device) {
    buffers_.push_back(sims_.device(device).buffer_type().alloc(t.nbytes()));
    buffers_.back()->place_tensor(t, 0);
    return *buffers_.back();
  }

  test::SimDevices sims_{kPassSims};
  std::vector<SchedBackend> backends_;
  std::vector<TensorPin> pins_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
  SchedGraph sg_;
  SchedState state_;
};

// The scheduler builds its view of a graph again for every schedule: a source pointer changed
// between two builds must be seen, and a failed build must not leave a stale id.
TEST_F(Passes, GraphRebuildFollowsChangedSources) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {8, 2, 1, 1}, "x");
  Tensor& y = g.input(DType::F32, {8, 2, 1, 1}, "y");
  Tensor& a = ops::add(g, x, y);
  Tensor& v = ops::reshape(g, a, {16, 1, 1, 1});
  Graph graph = g.build({&v});
  GraphBuilder other;
  Tensor& foreign = other.input(DType::F32, {8, 2, 1, 1}, "foreign");
  sg_.build(graph);
  const int32_t ia = sg_.find(&a);
  EXPECT_EQ(sg_.sources(ia)[1], sg_.find(&y));
  EXPECT_EQ(sg_.storage(sg_.find(&v)), ia);

  a.src[1] = &x;
  sg_.build(graph);
  EXPECT_EQ(sg_.sources(ia)[1], sg_.find(&x));
  a.src[1] = &foreign;
  EXPECT_THROW(sg_.build(graph), Error);
  EXPECT_THROW(sg_.build(graph), Error);  // still seen as foreign, not as the id before
  a.src[1] = &y;
  sg_.build(graph);
  EXPECT_EQ(sg_.sources(ia)[1], sg_.find(&y));
  v.view_src = &x;
  sg_.build(graph);
  EXPECT_EQ(sg_.storage(sg_.find(&v)), sg_.find(&x));
}

TEST_F(Passes, PinsDecideFirstAndAreChecked) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {8, 2, 1, 1}, "x");
  Tensor& a = ops::add(g, x, x);
  Tensor& n = ops::rms_norm(g, a, 1e-5f);
  Tensor& v = ops::reshape(g, n, {16, 1, 1, 1});
  Graph graph = g.build({&v});
  prepare(graph, {"gpu0", "gpu1", "host"}, {}, {{&a, 1}, {&x, 1}});
  pass_pins(state_);
  EXPECT_EQ(decision(a).backend, 1);
  EXPECT_EQ(decision(a).cause, Cause::pinned);
  EXPECT_EQ(decision(x).backend, 1);  // a leaf without memory may be pinned too
  EXPECT_FALSE(state_.decided(id(n)));

  prepare(graph, {"gpu0", "gpu1", "host"}, {}, {{&n, 0}});
  EXPECT_THROW(pass_pins(state_), Error);  // gpu0 does not run rms_norm
  prepare(graph, {"gpu0", "gpu1", "host"}, {}, {{&v, 1}});
  const Error e = test::thrown_by([&] { pass_pins(state_); }, "a view was pinned");
  EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  EXPECT_NE(std::string(e.what()).find("pin '" + n.name + "' instead"), std::string::npos);
}

TEST_F(Passes, PreallocatedTensorsAndWeightReadersGoWhereTheMemoryIs) {
  test::MatmulStart mm(8, 8, 2);
  auto& [g, x, w, h] = mm;
  Tensor& n = ops::rms_norm(g, h, 1e-5f);
  Graph graph = g.build({&n});
  place(w, "gpu0");
  prepare(graph, {"gpu0", "gpu1", "host"});
  pass_preallocated(state_);
  EXPECT_EQ(decision(x).backend, 2);
  EXPECT_EQ(decision(x).cause, Cause::graph_input);
  EXPECT_EQ(decision(w).backend, 0);
  EXPECT_EQ(decision(w).cause, Cause::preallocated);
  EXPECT_EQ(decision(h).backend, 0);
  EXPECT_EQ(decision(h).cause, Cause::weight);
  EXPECT_EQ(decision(h).via, id(w));
  EXPECT_FALSE(state_.decided(id(n)));
}

TEST_F(Passes, OffloadTakesHostWeightOpsTheDeviceAsksFor) {
  test::MatmulStart mm(8, 8, 2);
  auto& [g, x, w, h] = mm;
  Graph graph = g.build({&h});
  place(w, "CPU");
  prepare(graph, {"gpu0", "off", "CPU"});
  pass_preallocated(state_);
  EXPECT_EQ(decision(w).backend, 2);
  EXPECT_EQ(decision(h).backend, 1);
  EXPECT_EQ(decision(h).cause, Cause::offload);

  prepare(graph, {"gpu0", "off", "CPU"}, {.offload = false, .copies = 1});
  pass_preallocated(state_);
  EXPECT_NE(decision(h).cause, Cause::offload);
  if (state_.decided(id(h))) {
    EXPECT_EQ(decision(h).backend, 2);  // weight: only when the CPU runs mul_mat
  }
}

TEST_F(Passes, MemoryOnNoBackendIsAnError) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::F32, {8, 1, 1, 1}, "w");
  Graph graph = g.build({&ops::add(g, w, w)});
  place(w, "gpu1");
  prepare(graph, {"gpu0", "host"});
  EXPECT_THROW(pass_preallocated(state_), Error);
}

TEST_F(Passes, ExpansionSpreadsGpuRunsBeforeCpuRuns) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {8, 1, 1, 1}, "x");
  std::vector<Tensor*> chain{&ops::add(g, x, x)};
  for (int i = 0; i < 4; ++i) chain.push_back(&ops::add(g, *chain.back(), x));
  Graph graph = g.build({chain.back()});
  prepare(graph, {"gpu0", "gpu1", "host"});
  pass_preallocated(state_);
  state_.decide(id(*chain[0]), 2, Cause::pinned, -1);  // a CPU node first...
  state_.decide(id(*chain[4]), 0, Cause::pinned, -1);  // ... and a GPU node last
  pass_expand(state_);
  for (int i = 1; i < 4; ++i) {
    EXPECT_EQ(decision(*chain[static_cast<size_t>(i)]).backend, 0) << i;
    EXPECT_EQ(decision(*chain[static_cast<size_t>(i)]).cause, Cause::expand_up) << i;
  }
  EXPECT_EQ(decision(*chain[3]).via, id(*chain[4]));
}

TEST_F(Passes, ExpansionStopsAtANodeTheBackendCannotRun) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {8, 1, 1, 1}, "x");
  Tensor& a = ops::add(g, x, x);
  Tensor& n = ops::rms_norm(g, a, 1e-5f);  // gpu0 does not run it
  Tensor& b = ops::add(g, n, x);
  Graph graph = g.build({&b});
  prepare(graph, {"gpu0", "host"});
  pass_preallocated(state_);
  state_.decide(id(a), 0, Cause::pinned, -1);
  pass_expand(state_);
  EXPECT_FALSE(state_.decided(id(n)));
  EXPECT_FALSE(state_.decided(id(b)));  // not jumped over the rms_norm
}

TEST_F(Passes, UpgradeMovesToABackendThatReadsEveryInput) {
  test::MatmulStart mm(8, 8, 2);
  auto& [g, x, w, h] = mm;
  Tensor& s = ops::silu(g, h);
  Graph graph = g.build({&s});
  place(w, "gpu0");
  prepare(graph, {"gpu1", "gpu0", "host"});
  pass_preallocated(state_);
  pass_expand(state_);
  EXPECT_EQ(decision(h).backend, 1);  // with its weight on gpu0
  pass_upgrade(state_);
  EXPECT_EQ(decision(h).backend, 0);  // gpu1 reads gpu0's and the host's memory in place
  EXPECT_EQ(decision(h).cause, Cause::upgrade);
  EXPECT_EQ(decision(h).via, 1);
  EXPECT_EQ(decision(s).backend, 0);
}

TEST_F(Passes, FillInPutsViewsWithTheirMemoryAndNodesWithTheirInputs) {
  test::MatmulStart mm(8, 8, 2);
  auto& [g, x, w, h] = mm;
  Tensor& v = ops::reshape(g, h, {16, 1, 1, 1});
  Tensor& n = ops::rms_norm(g, v, 1e-5f);
  Graph graph = g.build({&n});
  place(w, "gpu0");
  prepare(graph, {"gpu0", "gpu1", "host"});
  pass_preallocated(state_);
  pass_fill(state_);
  EXPECT_EQ(decision(v).backend, 0);
  EXPECT_EQ(decision(v).cause, Cause::view_source);
  EXPECT_EQ(decision(n).backend, 1);  // gpu1 reads gpu0's memory; gpu0 does not run rms_norm
  EXPECT_EQ(decision(n).cause, Cause::best_inputs);
  EXPECT_EQ(decision(n).via, id(v));
}

TEST_F(Passes, FillInFallsBackToTheFirstBackendThatRunsTheNode) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {8, 2, 1, 1}, "x");
  Tensor& n = ops::rms_norm(g, x, 1e-5f);
  Graph graph = g.build({&n});
  prepare(graph, {"gpu0", "host"}, {}, {{&x, 0}});
  pass_pins(state_);  // x on gpu0: only gpu0 reads it, and gpu0 does not run rms_norm
  pass_fill(state_);
  EXPECT_EQ(decision(n).backend, 1);
  EXPECT_EQ(decision(n).cause, Cause::fallback);
}

TEST_F(Passes, FillInNamesEveryBackendWhenNoneRunsANode) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {8, 2, 1, 1}, "x");
  Tensor& n = ops::rms_norm(g, x, 1e-5f);
  Graph graph = g.build({&n});
  prepare(graph, {"gpu0", "off"}, {});  // no fallback that runs rms_norm (and no CPU: passes alone)
  pass_preallocated(state_);
  const Error e = test::thrown_by([&] { pass_fill(state_); }, "an rms_norm found a backend");
  EXPECT_EQ(e.code(), ErrorCode::unsupported);
  const std::string what = e.what();
  EXPECT_NE(what.find("gpu0:"), std::string::npos);
  EXPECT_NE(what.find("off:"), std::string::npos);
}

TEST_F(Passes, SplitsCopyEachForeignInputOncePerBackend) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {8, 2, 1, 1}, "x");
  Tensor& a = ops::add(g, x, x);           // gpu0: copies x once, though it reads it twice
  Tensor& n = ops::rms_norm(g, a, 1e-5f);  // host: copies a
  Tensor& b = ops::add(g, n, x);           // gpu0: copies n; x is already there
  Tensor& c = ops::add(g, b, a);           // gpu0: a is its own
  Graph graph = g.build({&c});
  prepare(graph, {"gpu0", "host"}, {}, {{&a, 0}, {&b, 0}});
  run_passes(state_);
  EXPECT_EQ(decision(c).cause, Cause::expand_down);
  EXPECT_EQ(decision(n).backend, 1);
  SplitPlan plan;
  pass_splits(state_, plan);
  ASSERT_EQ(plan.splits.size(), 3u);
  EXPECT_EQ(plan.splits[0].backend, 0);
  EXPECT_EQ(plan.splits[1].backend, 1);
  EXPECT_EQ(plan.splits[2].backend, 0);
  ASSERT_EQ(plan.inputs.size(), 3u);
  EXPECT_EQ(plan.inputs[0].tensor, id(x));
  EXPECT_EQ(plan.inputs[1].tensor, id(a));
  EXPECT_EQ(plan.inputs[2].tensor, id(n));
  EXPECT_EQ(plan.splits[2].input_end - plan.splits[2].input_begin, 1);
  EXPECT_EQ(plan.bytes_copied(), 3 * x.nbytes());
  EXPECT_EQ(plan.rewires.size(), 5u);  // x twice in a, a in n, n and x in b (x's copy reused)
}

TEST_F(Passes, SplitsWaitForResultsTheyReadInPlace) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {8, 2, 1, 1}, "x");
  Tensor& a = ops::add(g, x, x);
  Tensor& n = ops::rms_norm(g, a, 1e-5f);
  Graph graph = g.build({&n});
  prepare(graph, {"gpu0", "gpu1", "host"}, {}, {{&a, 0}});
  run_passes(state_);
  SplitPlan plan;
  pass_splits(state_, plan);
  ASSERT_EQ(plan.splits.size(), 2u);
  ASSERT_EQ(plan.splits[1].backend, 1);  // gpu1 reads a from gpu0's memory in place
  ASSERT_EQ(plan.splits[1].dep_end - plan.splits[1].dep_begin, 1);
  EXPECT_EQ(plan.deps[static_cast<size_t>(plan.splits[1].dep_begin)], 0);
}

}  // namespace
}  // namespace bk
