// SPDX-License-Identifier: MIT
#include "bk/sched_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "sched/sched_explain.h"
#include "sched/scheduler_impl.h"

namespace bk {
namespace {

const char* leaf_kind(const Tensor& t) {
  if (t.has_flag(kTensorWeight)) return "weight";
  if (t.has_flag(kTensorInput)) return "input";
  return "constant";
}

LeafReport leaf_report(const Scheduler::Impl& sched, int32_t id) {
  const SchedState& s = sched.state();
  const Decision& d = s.decision[static_cast<size_t>(id)];
  LeafReport r;
  r.tensor = &s.graph->tensor(id);
  r.kind = leaf_kind(*r.tensor);
  r.backend = d.backend;
  r.cause = d.cause;
  r.sentence = node_sentence(s, id);
  const BufferType* fixed = s.fixed[static_cast<size_t>(id)];
  r.memory = fixed != nullptr ? fixed->name()
                              : sched.backends()[static_cast<size_t>(d.backend)].compute_type->name();
  return r;
}

NodeReport node_report(const SchedState& s, int32_t index) {
  const int32_t id = s.graph->node_id(index);
  const Decision& d = s.decision[static_cast<size_t>(id)];
  NodeReport r;
  r.index = index;
  r.tensor = &s.graph->tensor(id);
  r.backend = d.backend;
  r.cause = d.cause;
  r.sentence = node_sentence(s, id);
  for (int b = 0; b < d.backend; ++b) r.passed_over.push_back(passed_over(s, id, b));
  return r;
}

SplitReport split_report(const Scheduler::Impl& sched, size_t index, std::vector<NodeReport>& nodes) {
  const SplitPlan& plan = sched.split_plan();
  const Split& split = plan.splits[index];
  SplitReport r;
  r.backend = split.backend;
  r.first_node = split.begin;
  r.last_node = split.end - 1;
  for (int32_t i = split.begin; i < split.end; ++i) {
    NodeReport& node = nodes[static_cast<size_t>(i)];
    node.split = static_cast<int>(index);
    r.computing_nodes += op_is_view(node.tensor->op) ? 0 : 1;
  }
  for (int32_t k = split.input_begin; k < split.input_end; ++k) {
    const SplitInput& in = plan.inputs[static_cast<size_t>(k)];
    r.inputs.push_back({&sched.sched_graph().tensor(in.tensor), in.from, in.to, in.bytes});
  }
  r.compute_bytes = sched.split_compute_bytes(index);
  return r;
}

// The reasons backend `b` was passed over, most frequent first.
std::vector<std::pair<PassReason, int>> passed_over_counts(const std::vector<NodeReport>& nodes, int b) {
  std::array<int, kPassReasonCount> counts{};
  for (const NodeReport& n : nodes) {
    for (const PassedOver& p : n.passed_over) {
      if (p.backend == b) ++counts[static_cast<size_t>(p.reason)];
    }
  }
  std::vector<std::pair<PassReason, int>> out;
  for (int r = 0; r < kPassReasonCount; ++r) {
    if (counts[static_cast<size_t>(r)] > 0)
      out.emplace_back(static_cast<PassReason>(r), counts[static_cast<size_t>(r)]);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  return out;
}

std::vector<IdleBackend> idle_backends(const SchedReport& r) {
  std::vector<IdleBackend> out;
  for (size_t b = 0; b + 1 < r.backends.size(); ++b) {
    if (r.nodes_per_backend[b] != 0) continue;
    IdleBackend idle{static_cast<int>(b), passed_over_counts(r.nodes, static_cast<int>(b)), false, false};
    for (const auto& [reason, count] : idle.passed_over) {
      idle.could_run =
          idle.could_run || (reason != PassReason::unsupported_op && reason != PassReason::unsupported_type);
    }
    for (const LeafReport& leaf : r.leafs) {
      idle.holds_weights =
          idle.holds_weights || (leaf.backend == idle.backend && leaf.kind == std::string_view("weight"));
    }
    out.push_back(std::move(idle));
  }
  return out;
}

SchedReport make_report(const Scheduler::Impl& sched) {
  const SchedState& s = sched.state();
  SchedReport report;
  for (const SchedBackend& b : sched.backends()) report.backends.push_back(b.device->name());
  report.nodes_per_backend.assign(report.backends.size(), 0);
  for (int32_t id = 0; id < s.graph->leaf_count(); ++id) report.leafs.push_back(leaf_report(sched, id));
  for (int32_t i = 0; i < s.graph->node_count(); ++i) {
    report.nodes.push_back(node_report(s, i));
    ++report.nodes_per_backend[static_cast<size_t>(report.nodes.back().backend)];
  }
  for (size_t k = 0; k < sched.split_plan().splits.size(); ++k)
    report.splits.push_back(split_report(sched, k, report.nodes));
  report.copies = sched.split_plan().inputs.size();
  report.bytes_copied = sched.split_plan().bytes_copied();
  report.planned = sched.memory_plan() != nullptr;
  for (size_t b = 0; b < report.backends.size(); ++b)
    report.compute_buffer_bytes.push_back(sched.compute_buffer_size(b));
  report.idle = idle_backends(report);
  return report;
}

}  // namespace

SchedReport Scheduler::report() const { return make_report(*impl_); }

}  // namespace bk
