// `bkctl sched --run`: the split graph against the CPU alone.
#include "commands/sched/cli.h"
#include "probe/graph_run.h"

namespace bkctl {
namespace {

constexpr uint64_t kSeed = 1;

// Devices may sum in another order or convert activations to the weights' dtype: the limit
// follows the least precise weight dtype.
double limit_for(const std::vector<bk::Tensor*>& weights) {
  double limit = 1e-6;
  for (const bk::Tensor* w : weights) {
    if (w->type == bk::DType::F16) limit = std::max(limit, 1e-4);
    if (w->type == bk::DType::BF16) limit = std::max(limit, 1e-3);
  }
  return limit;
}

}  // namespace

bool RunResult::ok() const noexcept {
  for (const OutputCheck& o : outputs) {
    if (!o.ok) return false;
  }
  return true;
}

RunResult run_against_cpu(SchedSession& session, bk::Scheduler& sched) {
  const std::vector<bk::Device*> devices = session.backend_devices();
  bk::WeightStore store;
  const bk::GraphRun run{devices, session.weight_device_of, kSeed, 1};
  const auto got = bk::evaluate_graph(session.graph, sched, run, store);
  bk::Graph reference = session.build_graph();
  const auto want = bk::evaluate_on_cpu(reference, bk::Registry::global().device("CPU"), kSeed);
  RunResult result;
  result.limit = limit_for(session.weights);
  for (size_t i = 0; i < got.size(); ++i) {
    OutputCheck check;
    check.name = session.graph.outputs()[i]->name;
    check.elements = got[i].size();
    check.error = bk::normalized_error(got[i], want[i]);
    check.ok = check.error <= result.limit;
    result.outputs.push_back(check);
  }
  return result;
}

}  // namespace bkctl
