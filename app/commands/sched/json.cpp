// SPDX-License-Identifier: MIT
// `bkctl sched --json`: the decision record as schema bk.sched/v2: what the session chose (graph,
// options, backends, run) around the report's fields, which the library renders.
#include "bk/version.h"
#include "commands/sched/cli.h"

namespace bkctl {
namespace {

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
  // The report's own fields are rendered once, by the library (bk::sched_report_json).
  const ojson rendered = ojson::parse(bk::sched_report_json(report));
  for (const char* key : {"nodes", "leafs", "splits", "totals", "idle_backends"}) doc[key] = rendered.at(key);
  doc["run"] = run_json(run);
  return doc;
}

}  // namespace bkctl
