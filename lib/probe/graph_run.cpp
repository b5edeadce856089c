#include "probe/graph_run.h"

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

std::vector<std::vector<double>> evaluate_on_cpu(Graph& graph, Device& cpu, uint64_t seed) {
  std::unique_ptr<Backend> backend = cpu.init_backend();
  Scheduler sched({backend.get()});
  Device* devices[] = {&cpu};
  const std::vector<size_t> device_of(weights_in_use_order(graph).size(), 0);
  WeightStore store;
  return evaluate_graph(graph, sched, {devices, device_of, seed, 1}, store);
}

}  // namespace bk
