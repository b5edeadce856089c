// SPDX-License-Identifier: MIT
// `bkctl sched --run`: the split graph against the float64 reference.
#include <fmt/format.h>

#include "bk/error.h"
#include "bk/units.h"
#include "commands/sched/cli.h"
#include "probe/graph_run.h"

namespace bkctl {
namespace {

// What --run takes on one device, by part.
struct DeviceNeed {
  size_t weights = 0;
  size_t compute = 0;
  size_t verification = 0;  // host memory for the float64 check: the CPU only
  size_t total() const noexcept {
    return bk::saturating_add(bk::saturating_add(weights, compute), verification);
  }
};

std::string describe(const DeviceNeed& need) {
  std::string parts = fmt::format("weights {}, compute buffers {}", bk::format_bytes(need.weights),
                                  bk::format_bytes(need.compute));
  if (need.verification > 0) {
    parts += fmt::format(", float64 reference and outputs {}", bk::format_bytes(need.verification));
  }
  return parts;
}

}  // namespace

void check_run_fits(const SchedSession& session) {
  bk::Graph g = session.build_graph();
  const std::unique_ptr<bk::Scheduler> sched = session.make_scheduler(g);
  session.plan_without_memory(g, *sched);
  const std::vector<size_t> compute = sched->report().compute_buffer_bytes;
  std::vector<DeviceNeed> needs(session.backends.size());
  const std::vector<bk::Tensor*> weights = bk::weights_in_use_order(g);
  for (size_t i = 0; i < weights.size(); ++i) {
    DeviceNeed& need = needs[session.weight_device_of[i]];
    need.weights = bk::saturating_add(need.weights, weights[i]->nbytes());
  }
  for (size_t b = 0; b < needs.size() && b < compute.size(); ++b) needs[b].compute = compute[b];
  needs.back().verification = bk::verification_host_bytes(g);  // the CPU is last
  for (size_t b = 0; b < needs.size(); ++b) {
    const bk::Device& device = session.backends[b]->device();
    const bk::MemoryInfo memory = device.memory();
    if (needs[b].total() <= memory.free) continue;
    throw bk::Error(
        bk::ErrorCode::out_of_memory,
        fmt::format(
            "--run needs {} on {} ({}), but only {} of {} is free; leave out --run to see the plan, "
            "or use a smaller graph{}",
            bk::format_bytes(needs[b].total()), device.name(), describe(needs[b]),
            bk::format_bytes(memory.free), bk::format_bytes(memory.total),
            needs[b].weights > 0 && needs.size() > 1 ? " or spread the weights (--weights-split)" : ""));
  }
}

bool RunResult::ok() const noexcept {
  for (const OutputCheck& o : outputs) {
    if (!o.ok) return false;
  }
  return true;
}

RunResult run_against_reference(SchedSession& session, bk::Scheduler& sched) {
  const std::vector<bk::Device*> devices = session.backend_devices();
  bk::WeightStore store;
  constexpr uint64_t kWeightSeed = 1;
  const bk::GraphRun run{devices, session.weight_device_of, kWeightSeed, 1};
  const auto got = bk::evaluate_graph(session.graph, sched, run, store);
  const std::vector<bk::verify::NmseCheck> checks = bk::check_graph_outputs(session.graph, kWeightSeed, got);
  RunResult result;
  for (size_t i = 0; i < got.size(); ++i) {
    result.limit = checks[i].limit;
    result.outputs.push_back({session.graph.outputs()[i]->name, got[i].size(), checks[i].nmse, checks[i].ok});
  }
  return result;
}

}  // namespace bkctl
