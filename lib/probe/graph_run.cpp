// SPDX-License-Identifier: MIT
#include "probe/graph_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "bk/error.h"
#include "bk/op.h"
#include "bk/units.h"
#include "probe/verify/limits.h"
#include "probe/verify/reference.h"

namespace bk {
namespace {

// Doubles for n values, saturating.
size_t doubles(size_t n) noexcept { return n > SIZE_MAX / sizeof(double) ? SIZE_MAX : n * sizeof(double); }

size_t elements(const Tensor& t) noexcept { return static_cast<size_t>(t.nelements()); }

// The reference's slots for a tensor that owns storage: one per element position of its bytes.
size_t slots(const Tensor& t) noexcept { return t.nbytes() / dtype_size(t.type); }

}  // namespace

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

size_t verification_host_bytes(const Graph& graph) noexcept {
  size_t bytes = 0;
  for (const Tensor* leaf : graph.leafs()) {
    bytes = saturating_add(bytes, doubles(elements(*leaf)));
    if (leaf->is_view() || !leaf->is_contiguous()) bytes = saturating_add(bytes, doubles(slots(*leaf)));
  }
  size_t largest_result = 0;
  for (const Tensor* node : graph.nodes()) {
    if (op_is_view(node->op)) continue;
    if (!node->is_view()) bytes = saturating_add(bytes, doubles(slots(*node)));
    largest_result = std::max(largest_result, doubles(elements(*node)));
  }
  bytes = saturating_add(bytes, largest_result);
  for (const Tensor* out : graph.outputs()) {
    bytes = saturating_add(bytes, doubles(elements(*out)));
    bytes = saturating_add(bytes, doubles(elements(*out)));
  }
  return bytes;
}

}  // namespace bk
