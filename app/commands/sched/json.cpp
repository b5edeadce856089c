// `bkctl sched --json`: the decision record as schema bk.sched/v2.
#include "bk/version.h"
#include "commands/sched/cli.h"

namespace bkctl {
namespace {

ojson shape(const bk::Tensor& t) { return ojson{t.ne[0], t.ne[1], t.ne[2], t.ne[3]}; }

ojson graph_json(const SchedSession& s) {
  ojson g;
  const bool file = !s.args.graph_file.empty();
  g["source"] = file ? "file" : "builtin";
  g["name"] = file ? s.args.graph_file : s.args.graph;
  if (file) {
    g["params"] = nullptr;
  } else {
    const bk::ModelParams& p = s.args.model;
    g["params"] = {{"layers", p.layers},
                   {"hidden", p.hidden},
                   {"heads", p.heads},
                   {"batch", p.batch},
                   {"dtype", bk::dtype_name(p.dtype)}};
  }
  g["nodes"] = s.graph.nodes().size();
  g["leafs"] = s.graph.leafs().size();
  return g;
}

ojson options_json(const SchedSession& s) {
  ojson pins = ojson::array();
  for (const auto& [name, b] : s.pins)
    pins.push_back({{"tensor", name}, {"device", s.backends[b]->device().name()}});
  ojson weights;
  weights["mode"] = !s.args.weights_split.empty() ? "split" : (!s.args.weights_on.empty() ? "on" : "cpu");
  weights["device"] = s.args.weights_on.empty() ? ojson(nullptr) : ojson(s.args.weights_on);
  weights["split"] = s.args.weights_split.empty() ? ojson(nullptr) : ojson(s.args.weights_split);
  return {{"offload", !s.args.no_offload}, {"copies", s.args.copies}, {"pins", pins}, {"weights", weights}};
}

ojson backends_json(const SchedSession& s) {
  std::vector<size_t> bytes(s.backends.size(), 0);
  for (size_t i = 0; i < s.weights.size(); ++i) bytes[s.weight_device_of[i]] += s.weights[i]->nbytes();
  ojson out = ojson::array();
  for (size_t i = 0; i < s.backends.size(); ++i) {
    const bk::Device& d = s.backends[i]->device();
    out.push_back({{"index", i},
                   {"name", d.name()},
                   {"description", d.description()},
                   {"type", bk::device_type_name(d.type())},
                   {"simulated", d.is_simulated()},
                   {"weights_bytes", bytes[i]}});
  }
  return out;
}

ojson nodes_json(const bk::SchedReport& r) {
  ojson out = ojson::array();
  for (const bk::NodeReport& n : r.nodes) {
    ojson passed = ojson::array();
    for (const bk::PassedOver& p : n.passed_over) {
      passed.push_back({{"backend", r.backends[static_cast<size_t>(p.backend)]},
                        {"reason", bk::pass_reason_name(p.reason)},
                        {"detail", p.detail}});
    }
    out.push_back({{"index", n.index},
                   {"name", n.tensor->name},
                   {"op", bk::op_name(n.tensor->op)},
                   {"type", bk::dtype_name(n.tensor->type)},
                   {"shape", shape(*n.tensor)},
                   {"backend", r.backends[static_cast<size_t>(n.backend)]},
                   {"cause", bk::cause_name(n.cause)},
                   {"reason", n.sentence},
                   {"passed_over", passed},
                   {"split", n.split >= 0 ? ojson(n.split) : ojson(nullptr)}});
  }
  return out;
}

ojson leafs_json(const bk::SchedReport& r) {
  ojson out = ojson::array();
  for (const bk::LeafReport& l : r.leafs) {
    out.push_back({{"name", l.tensor->name},
                   {"kind", l.kind},
                   {"type", bk::dtype_name(l.tensor->type)},
                   {"shape", shape(*l.tensor)},
                   {"bytes", l.tensor->nbytes()},
                   {"backend", r.backends[static_cast<size_t>(l.backend)]},
                   {"cause", bk::cause_name(l.cause)},
                   {"reason", l.sentence},
                   {"memory", l.memory}});
  }
  return out;
}

ojson splits_json(const bk::SchedReport& r) {
  ojson out = ojson::array();
  for (size_t k = 0; k < r.splits.size(); ++k) {
    const bk::SplitReport& s = r.splits[k];
    ojson inputs = ojson::array();
    for (const bk::SplitInputReport& in : s.inputs) {
      inputs.push_back({{"tensor", in.tensor->name},
                        {"from", r.backends[static_cast<size_t>(in.from)]},
                        {"to", r.backends[static_cast<size_t>(in.to)]},
                        {"bytes", in.bytes}});
    }
    out.push_back({{"index", k},
                   {"backend", r.backends[static_cast<size_t>(s.backend)]},
                   {"first_node", s.first_node},
                   {"last_node", s.last_node},
                   {"nodes", s.last_node - s.first_node + 1},
                   {"computing_nodes", s.computing_nodes},
                   {"inputs", inputs},
                   {"compute_buffer_bytes", r.planned ? ojson(s.compute_bytes) : ojson(nullptr)}});
  }
  return out;
}

ojson totals_json(const bk::SchedReport& r) {
  ojson per_backend = ojson::array();
  ojson buffers = ojson::array();
  for (size_t b = 0; b < r.backends.size(); ++b) {
    per_backend.push_back({{"backend", r.backends[b]}, {"nodes", r.nodes_per_backend[b]}});
    buffers.push_back({{"backend", r.backends[b]}, {"bytes", r.compute_buffer_bytes[b]}});
  }
  return {{"nodes", r.nodes.size()},        {"splits", r.splits.size()},        {"copies", r.copies},
          {"bytes_copied", r.bytes_copied}, {"nodes_per_backend", per_backend}, {"compute_buffers", buffers}};
}

// Why each idle device runs nothing (SchedReport::idle).
ojson idle_json(const bk::SchedReport& r) {
  ojson out = ojson::array();
  for (const bk::IdleBackend& idle : r.idle) {
    ojson reasons = ojson::array();
    for (const auto& [reason, count] : idle.passed_over)
      reasons.push_back({{"reason", bk::pass_reason_name(reason)}, {"nodes", count}});
    out.push_back({{"backend", r.backends[static_cast<size_t>(idle.backend)]},
                   {"passed_over", reasons},
                   {"holds_weights", idle.holds_weights},
                   {"could_run", idle.could_run}});
  }
  return out;
}

ojson run_json(const RunResult* run) {
  if (run == nullptr) return nullptr;
  ojson outputs = ojson::array();
  for (const OutputCheck& o : run->outputs) {
    outputs.push_back({{"name", o.name},
                       {"elements", o.elements},
                       {"normalized_error", std::isfinite(o.error) ? ojson(o.error) : ojson(nullptr)},
                       {"ok", o.ok}});
  }
  return {{"reference", "float64"}, {"limit", run->limit}, {"ok", run->ok()}, {"outputs", outputs}};
}

}  // namespace

ojson sched_document(const SchedSession& session, const bk::SchedReport& report, const RunResult* run) {
  ojson doc = json_document("bk.sched/v2");
  doc["bkctl_version"] = std::string(bk::kVersion);
  doc["graph"] = graph_json(session);
  doc["options"] = options_json(session);
  doc["backends"] = backends_json(session);
  doc["nodes"] = nodes_json(report);
  doc["leafs"] = leafs_json(report);
  doc["splits"] = splits_json(report);
  doc["totals"] = totals_json(report);
  doc["idle_backends"] = idle_json(report);
  doc["run"] = run_json(run);
  return doc;
}

}  // namespace bkctl
