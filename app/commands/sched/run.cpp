// SPDX-License-Identifier: MIT
// `bkctl sched --run`: the split graph against the float64 reference.
#include "commands/sched/cli.h"
#include "probe/graph_run.h"

namespace bkctl {

constexpr uint64_t kSeed = 1;

bool RunResult::ok() const noexcept {
  for (const OutputCheck& o : outputs) {
    if (!o.ok) return false;
  }
  return true;
}

RunResult run_against_reference(SchedSession& session, bk::Scheduler& sched) {
  const std::vector<bk::Device*> devices = session.backend_devices();
  bk::WeightStore store;
  const bk::GraphRun run{devices, session.weight_device_of, kSeed, 1};
  const auto got = bk::evaluate_graph(session.graph, sched, run, store);
  const std::vector<bk::verify::NmseCheck> checks = bk::check_graph_outputs(session.graph, kSeed, got);
  RunResult result;
  for (size_t i = 0; i < got.size(); ++i) {
    result.limit = checks[i].limit;
    result.outputs.push_back({session.graph.outputs()[i]->name, got[i].size(), checks[i].nmse, checks[i].ok});
  }
  return result;
}

}  // namespace bkctl
