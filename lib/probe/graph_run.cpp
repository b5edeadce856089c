// SPDX-License-Identifier: MIT
#include "probe/graph_run.h"

#include <fmt/format.h>

#include "bk/error.h"
#include "probe/verify/limits.h"
#include "probe/verify/reference.h"

namespace bk {

std::vector<std::vector<double>> evaluate_graph(Graph& graph, Scheduler& sched, const GraphRun& run,
                                                WeightStore& store) {
  const std::vector<Tensor*> weights = weights_in_use_order(graph);
  store.allocate(weights, run.weight_device_of, run.weight_devices);
  fill_weights(graph, run.seed);
  sched.alloc_graph(graph);
  fill_inputs(graph, run.seed);
  for (int i = 0; i < run.evaluations; ++i) sched.compute(graph);
  sched.synchronize();
  std::vector<std::vector<double>> outputs;
  for (const Tensor* out : graph.outputs()) outputs.push_back(read_elements(*out));
  return outputs;
}

std::vector<verify::NmseCheck> check_graph_outputs(const Graph& graph, uint64_t seed,
                                                   const std::vector<std::vector<double>>& got) {
  if (got.size() != graph.outputs().size()) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{} results for a graph of {} outputs", got.size(), graph.outputs().size()));
  }
  const verify::Reference reference(graph, graph_leaf_values(graph, seed));
  const double limit = verify::graph_limit(graph);
  std::vector<verify::NmseCheck> checks;
  for (size_t i = 0; i < got.size(); ++i) {
    const Tensor& out = *graph.outputs()[i];
    checks.push_back(verify::check_nmse(got[i], reference.values(out), limit, out));
  }
  return checks;
}

}  // namespace bk
