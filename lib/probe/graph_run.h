#pragma once
// Evaluating a graph with random data through a scheduler: what `bkctl sched --run` and the
// scheduler tests do to prove that a split graph computes what the CPU alone computes.

#include <cstdint>
#include <span>
#include <vector>

#include "bk/device.h"
#include "bk/scheduler.h"
#include "probe/graph_data.h"

namespace bk {

struct GraphRun {
  std::span<Device* const> weight_devices;   // where weights can live
  std::span<const size_t> weight_device_of;  // per weights_in_use_order(graph): index into weight_devices
  uint64_t seed = 1;
  int evaluations = 1;  // computes this many times (pipelined copies take turns), keeps the last
};

// Places and fills the weights (kept in `store`), allocates the graph with `sched`, fills the
// inputs, computes, synchronizes, and returns each output's elements in graph.outputs() order.
std::vector<std::vector<double>> evaluate_graph(Graph& graph, Scheduler& sched, const GraphRun& run,
                                                WeightStore& store);

// The same graph on `cpu` alone (a CPU-type device; weights in host memory): the reference.
std::vector<std::vector<double>> evaluate_on_cpu(Graph& graph, Device& cpu, uint64_t seed);

}  // namespace bk
