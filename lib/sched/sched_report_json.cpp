// SPDX-License-Identifier: MIT
// SchedReport as JSON: the fields of schema bk.sched/v2 that come from the report (nodes, leafs,
// splits, totals, idle_backends). `bkctl sched --json` embeds them in its document and the C API
// returns them as they are, so the rendering exists once.
#include <nlohmann/json.hpp>

#include "bk/op.h"
#include "bk/sched_report.h"

namespace bk {
namespace {

using ojson = nlohmann::ordered_json;

ojson shape(const Tensor& t) { return ojson{t.ne[0], t.ne[1], t.ne[2], t.ne[3]}; }

const std::string& backend_name(const SchedReport& r, int backend) {
  return r.backends.at(static_cast<size_t>(backend));
}

ojson nodes_json(const SchedReport& r) {
  ojson out = ojson::array();
  for (const NodeReport& n : r.nodes) {
    ojson passed = ojson::array();
    for (const PassedOver& p : n.passed_over) {
      passed.push_back({{"backend", backend_name(r, p.backend)},
                        {"reason", pass_reason_name(p.reason)},
                        {"detail", p.detail}});
    }
    out.push_back({{"index", n.index},
                   {"name", n.tensor->name},
                   {"op", op_name(n.tensor->op)},
                   {"type", dtype_name(n.tensor->type)},
                   {"shape", shape(*n.tensor)},
                   {"backend", backend_name(r, n.backend)},
                   {"cause", cause_name(n.cause)},
                   {"reason", n.sentence},
                   {"passed_over", passed},
                   {"split", n.split >= 0 ? ojson(n.split) : ojson(nullptr)}});
  }
  return out;
}

ojson leafs_json(const SchedReport& r) {
  ojson out = ojson::array();
  for (const LeafReport& l : r.leafs) {
    out.push_back({{"name", l.tensor->name},
                   {"kind", l.kind},
                   {"type", dtype_name(l.tensor->type)},
                   {"shape", shape(*l.tensor)},
                   {"bytes", l.tensor->nbytes()},
                   {"backend", backend_name(r, l.backend)},
                   {"cause", cause_name(l.cause)},
                   {"reason", l.sentence},
                   {"memory", l.memory}});
  }
  return out;
}

ojson splits_json(const SchedReport& r) {
  ojson out = ojson::array();
  for (size_t k = 0; k < r.splits.size(); ++k) {
    const SplitReport& s = r.splits[k];
    ojson inputs = ojson::array();
    for (const SplitInputReport& in : s.inputs) {
      inputs.push_back({{"tensor", in.tensor->name},
                        {"from", backend_name(r, in.from)},
                        {"to", backend_name(r, in.to)},
                        {"bytes", in.bytes}});
    }
    out.push_back({{"index", k},
                   {"backend", backend_name(r, s.backend)},
                   {"first_node", s.first_node},
                   {"last_node", s.last_node},
                   {"nodes", s.last_node - s.first_node + 1},
                   {"computing_nodes", s.computing_nodes},
                   {"inputs", inputs},
                   {"compute_buffer_bytes", r.planned ? ojson(s.compute_bytes) : ojson(nullptr)}});
  }
  return out;
}

ojson totals_json(const SchedReport& r) {
  ojson per_backend = ojson::array();
  ojson buffers = ojson::array();
  for (size_t b = 0; b < r.backends.size(); ++b) {
    per_backend.push_back({{"backend", r.backends[b]}, {"nodes", r.nodes_per_backend.at(b)}});
    buffers.push_back({{"backend", r.backends[b]}, {"bytes", r.compute_buffer_bytes.at(b)}});
  }
  return {{"nodes", r.nodes.size()},        {"splits", r.splits.size()},        {"copies", r.copies},
          {"bytes_copied", r.bytes_copied}, {"nodes_per_backend", per_backend}, {"compute_buffers", buffers}};
}

// Why each idle device runs nothing (SchedReport::idle).
ojson idle_json(const SchedReport& r) {
  ojson out = ojson::array();
  for (const IdleBackend& idle : r.idle) {
    ojson reasons = ojson::array();
    for (const auto& [reason, count] : idle.passed_over)
      reasons.push_back({{"reason", pass_reason_name(reason)}, {"nodes", count}});
    out.push_back({{"backend", backend_name(r, idle.backend)},
                   {"passed_over", reasons},
                   {"holds_weights", idle.holds_weights},
                   {"could_run", idle.could_run}});
  }
  return out;
}

}  // namespace

std::string sched_report_json(const SchedReport& report) {
  ojson doc = ojson::object();
  doc["backends"] = report.backends;
  doc["planned"] = report.planned;
  doc["nodes"] = nodes_json(report);
  doc["leafs"] = leafs_json(report);
  doc["splits"] = splits_json(report);
  doc["totals"] = totals_json(report);
  doc["idle_backends"] = idle_json(report);
  // Names come from graph files and device settings: invalid UTF-8 is replaced, never fatal.
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace bk
