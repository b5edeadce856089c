// SPDX-License-Identifier: MIT
// Scheduling the same graph again: the scheduler keeps its schedule and memory plan while the
// graph is unchanged (GraphSignature), and must give exactly what a new scheduler gives once
// anything it reads has changed.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "bk/ops.h"
#include "bk/sched_report.h"
#include "bk/scheduler.h"
#include "sched/graph_signature.h"
#include "sim_fixture.h"

namespace bk {
namespace {

constexpr const char* kRescheduleSims = "gpu0:ops=mul_mat+add;gpu1:ops=all;host:type=cpu,ops=all";

// x -> h = w1 x -> n = rms_norm(h) -> o = w2 n -> r = o + h
struct MatmulChain {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {64, 8, 1, 1}, "x");
  Tensor& w1 = g.weight(DType::F32, {64, 64, 1, 1}, "w1");
  Tensor& w2 = g.weight(DType::F32, {64, 64, 1, 1}, "w2");
  Tensor& h = ops::mul_mat(g, w1, x);
  Tensor& n = ops::rms_norm(g, h, 1e-5f);
  Tensor& o = ops::mul_mat(g, w2, n);
  Tensor& r = ops::add(g, o, h);
  Graph graph = g.build({&r});
};

TEST(GraphSignature, EveryFieldTheSchedulerReadsCounts) {
  MatmulChain c;
  test::SimDevices sims(kRescheduleSims);
  const std::unique_ptr<Buffer> memory = sims.device("gpu0").buffer_type().alloc(c.w1.nbytes());
  GraphSignature sig;
  EXPECT_FALSE(sig.matches(c.graph));
  sig.record(c.graph);
  EXPECT_TRUE(sig.matches(c.graph));
  c.n.name = "renamed";  // names decide nothing
  c.x.data = &c;         // nor does data
  EXPECT_TRUE(sig.matches(c.graph));
  c.x.data = nullptr;

  // Each change alone is seen, and undoing it matches again.
  const auto seen = [&](const char* what, auto change) {
    Tensor saved = c.h;
    change(c.h);
    EXPECT_FALSE(sig.matches(c.graph)) << what;
    c.h = saved;
    EXPECT_TRUE(sig.matches(c.graph)) << what;
  };
  seen("type", [](Tensor& t) { t.type = DType::F16; });
  seen("ne", [](Tensor& t) { t.ne[3] = 2; });
  seen("nb", [](Tensor& t) { t.nb[2] *= 2; });
  seen("op", [](Tensor& t) { t.op = Op::add; });
  seen("params", [](Tensor& t) { t.params[7] = 1; });
  seen("src", [&](Tensor& t) { t.src[1] = &c.w2; });
  seen("view_src", [&](Tensor& t) { t.view_src = &c.x; });
  seen("view_offset", [](Tensor& t) { t.view_offset = 64; });
  seen("flags", [](Tensor& t) { t.flags |= kTensorOutput; });
  seen("memory", [&](Tensor& t) { t.buffer = memory.get(); });
  sig.clear();
  EXPECT_FALSE(sig.matches(c.graph));

  MatmulChain other;  // another graph: other tensors
  sig.record(c.graph);
  EXPECT_FALSE(sig.matches(other.graph));
}

class Reschedule : public ::testing::Test {
 protected:
  std::vector<Backend*> backends() { return sims_.backends({"gpu0", "gpu1", "host"}); }

  // Everything a schedule decides and plans: the report (placements, reasons, splits, copies,
  // compute buffer sizes) and where each tensor was placed in its buffer.
  static std::string outcome(Scheduler& sched, Graph& graph) {
    sched.alloc_graph(graph);
    std::string out = sched_report_json(sched.report());
    for (const auto nodes : {graph.leafs(), graph.nodes()}) {
      for (const Tensor* t : nodes) {
        if (t->buffer == nullptr) continue;
        const auto offset = static_cast<const char*>(t->data) - static_cast<const char*>(t->buffer->base());
        out += fmt::format(" {}@{}+{}", t->name, t->buffer->type().device().name(), offset);
      }
    }
    return out;
  }

  // The scheduler that has seen the graph before (on seen_) agrees with a new one (on the same
  // graph built again: placements live in the tensors, so two schedulers cannot share one), the
  // first time after a change (derived anew) and the next (kept).
  std::string agrees_with_a_new_scheduler(const char* what) {
    Scheduler fresh(backends());
    if (pinned_) fresh.pin(new_.n, 1);
    const std::string want = outcome(fresh, new_.graph);
    EXPECT_EQ(outcome(sched_, seen_.graph), want) << what;
    EXPECT_EQ(outcome(sched_, seen_.graph), want) << what << ", then unchanged";
    return want;
  }
  // The same change to both graphs.
  template <typename Change>
  void change(Change f) {
    f(seen_);
    f(new_);
  }

  test::SimDevices sims_{kRescheduleSims};
  MatmulChain seen_, new_;
  Scheduler sched_{backends()};
  bool pinned_ = false;
  std::vector<std::unique_ptr<Buffer>> buffers_;
};

TEST_F(Reschedule, AChangedGraphIsScheduledAsANewSchedulerWould) {
  const std::string first = agrees_with_a_new_scheduler("unchanged");

  // Each change below alters the outcome, so keeping the last one would fail the comparison.
  change([](MatmulChain& c) { c.r.src[1] = &c.o; });  // r = o + o: h dies at n, o may take its memory
  const std::string rewired = agrees_with_a_new_scheduler("a source changed");
  EXPECT_NE(rewired, first);

  change([](MatmulChain& c) { c.h.flags |= kTensorOutput; });  // h is kept to the end again
  const std::string kept = agrees_with_a_new_scheduler("h flagged output");
  EXPECT_NE(kept, rewired);

  change([&](MatmulChain& c) {  // w1 gets memory on gpu1: h goes there
    buffers_.push_back(sims_.device("gpu1").buffer_type().alloc(c.w1.nbytes()));
    buffers_.back()->place_tensor(c.w1, 0);
  });
  const std::string moved = agrees_with_a_new_scheduler("a weight got memory");
  EXPECT_NE(moved, kept);

  change([](MatmulChain& c) {  // a smaller input: smaller buffers
    c.x.ne[1] = 4;
    c.x.nb = packed_strides(c.x.type, c.x.ne);
  });
  const std::string smaller = agrees_with_a_new_scheduler("an input's shape changed");
  EXPECT_NE(smaller, moved);

  pinned_ = true;
  sched_.pin(seen_.n, 1);
  EXPECT_NE(agrees_with_a_new_scheduler("a pin added"), smaller);
  pinned_ = false;
  sched_.clear_pins();
  EXPECT_EQ(agrees_with_a_new_scheduler("the pin removed"), smaller);
}

}  // namespace
}  // namespace bk
