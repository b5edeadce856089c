// SPDX-License-Identifier: MIT
#pragma once
// Evaluating a graph with seeded data through a scheduler, and judging its outputs against the
// float64 reference: what `bkctl sched --run`, `bkctl bench --graph` and the scheduler tests do
// to prove that a split graph computes what the graph means.

#include <cstdint>
#include <span>
#include <vector>

#include "bk/device.h"
#include "bk/scheduler.h"
#include "probe/graph_data.h"
#include "probe/verify/nmse.h"

namespace bk {

struct GraphRun {
  std::span<Device* const> weight_devices;   // where weights can live
  std::span<const size_t> weight_device_of;  // per weights_in_use_order(graph): index into weight_devices
  uint64_t seed = 1;
  int evaluations = 1;  // computes this many times (pipelined copies take turns), keeps the last
};

// Places and fills the weights (kept in `store`), allocates the graph with `sched`, fills the
// inputs (graph_leaf_values(graph, run.seed)), computes, synchronizes, and returns each
// output's elements in graph.outputs() order. Errors are the devices' and the scheduler's.
std::vector<std::vector<double>> evaluate_graph(Graph& graph, Scheduler& sched, const GraphRun& run,
                                                WeightStore& store);

// Judges `got` (one entry per output, as evaluate_graph returns them) against the float64
// reference evaluated on the same graph from graph_leaf_values(graph, seed), every output
// against verify::graph_limit(graph). One check per output, in graph.outputs() order. The
// reference costs one float64 pass over the graph (see verify/reference.h); it reads only the
// graph's shapes, not its memory. Error(invalid_argument) when got does not match the outputs.
std::vector<verify::NmseCheck> check_graph_outputs(const Graph& graph, uint64_t seed,
                                                   const std::vector<std::vector<double>>& got);

// Host memory that judging a run of `graph` takes at its peak, beyond the devices' buffers: the
// leafs' values, the float64 reference's storage and its largest intermediate, and every output
// twice (as read back, and from the reference). Reads only shapes, so a caller can refuse a run
// before allocating anything; saturates at SIZE_MAX rather than overflowing.
size_t verification_host_bytes(const Graph& graph) noexcept;

}  // namespace bk
