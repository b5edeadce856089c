// SPDX-License-Identifier: MIT
// Seeded graph data and the judging of a graph's outputs against the float64 reference
// (probe/graph_data.h, probe/graph_run.h), on the CPU device.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "bk/cpu.h"
#include "bk/error.h"
#include "bk/ops.h"
#include "probe/graph_run.h"
#include "probe/model_graphs.h"
#include "probe/verify/limits.h"
#include "probe/verify/reference.h"

namespace bk {
namespace {

ModelParams small() {
  ModelParams p;
  p.hidden = 64;
  p.batch = 4;
  return p;
}

struct CpuRun {
  explicit CpuRun(std::string_view name, DType dtype = DType::F32) {
    ModelParams p = small();
    p.dtype = dtype;
    graph = build_model_graph(name, p);
    backend = cpu.init_backend();
    sched = std::make_unique<Scheduler>(std::vector<Backend*>{backend.get()});
  }
  std::vector<std::vector<double>> evaluate(uint64_t seed) {
    Device* devices[] = {&cpu};
    const std::vector<size_t> device_of(weights_in_use_order(graph).size(), 0);
    return evaluate_graph(graph, *sched, {devices, device_of, seed, 1}, store);
  }

  Device& cpu = *cpu_reg().devices().front();
  Graph graph;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Scheduler> sched;
  WeightStore store;
};

TEST(GraphData, TheLeafValuesAreWhatTheFillsWrite) {
  CpuRun run("transformer", DType::F16);
  run.evaluate(3);
  const verify::LeafValues values = graph_leaf_values(run.graph, 3);
  for (const Tensor* leaf : run.graph.leafs()) {
    std::vector<double> want = values.at(leaf);
    for (double& v : want) v = verify::round_to(leaf->type, v);
    EXPECT_EQ(read_elements(*leaf), want) << leaf->name;
  }
  EXPECT_NE(graph_leaf_values(run.graph, 4).at(run.graph.leafs().back()),
            values.at(run.graph.leafs().back()));
}

TEST(GraphRun, EveryModelGraphOnTheCpuMatchesTheReference) {
  for (std::string_view name : model_graph_names()) {
    for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
      CpuRun run(name, dtype);
      const auto checks = check_graph_outputs(run.graph, 5, run.evaluate(5));
      ASSERT_EQ(checks.size(), run.graph.outputs().size());
      for (const verify::NmseCheck& c : checks) {
        EXPECT_TRUE(c.ok) << name << " " << dtype_name(dtype) << ": " << c.message;
        EXPECT_EQ(c.limit, verify::graph_limit(run.graph));
      }
    }
  }
}

TEST(GraphRun, AWrongOutputFailsAndOtherSeedsAreOtherData) {
  CpuRun run("mlp");
  std::vector<std::vector<double>> got = run.evaluate(5);
  got[0][7] += 10;  // outputs are ~1: a wrong element, not rounding
  const verify::NmseCheck wrong = check_graph_outputs(run.graph, 5, got)[0];
  EXPECT_FALSE(wrong.ok);
  EXPECT_EQ(wrong.worst, 7u);
  EXPECT_FALSE(check_graph_outputs(run.graph, 6, run.evaluate(5))[0].ok) << "judged against seed 6's data";
  EXPECT_THROW(check_graph_outputs(run.graph, 5, {}), Error);
}

TEST(GraphRun, VerificationHostBytesCountEveryDoubleAndSaturate) {
  GraphBuilder b;
  Tensor& x = b.input(DType::F32, {4, 3, 1, 1}, "x");
  Tensor& y = ops::add(b, x, x);
  const Graph small_graph = b.build({&y});
  // The leaf's 12 values, y's 12 slots, its 12-value result, and y twice as an output.
  EXPECT_EQ(verification_host_bytes(small_graph), 60 * sizeof(double));

  GraphBuilder h;
  Tensor& one = h.input(DType::F32, {1, 1, 1, 1}, "one");
  Tensor& wide =
      ops::view(h, one, {int64_t{1} << 20, int64_t{1} << 20, int64_t{1} << 20, 1}, {0, 0, 0, 0}, 0);
  Tensor& out = ops::cont(h, wide);  // 2^60 elements: the doubles pass SIZE_MAX
  EXPECT_EQ(verification_host_bytes(h.build({&out})), SIZE_MAX);
}

}  // namespace
}  // namespace bk
