// SPDX-License-Identifier: MIT
// `bkctl sched`: the readable report -- one line per split, one per node with --verbose.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "bk/strings.h"
#include "bk/units.h"
#include "commands/sched/cli.h"
#include "output/table.h"
#include "output/wrap.h"

namespace bkctl {
namespace {

std::string graph_line(const SchedSession& s) {
  const bk::Graph& g = s.graph;
  if (!s.args.graph_file.empty()) {
    return fmt::format("graph: {} ({}, {})\n", s.args.graph_file, bk::count_of(g.nodes().size(), "node"),
                       bk::count_of(g.leafs().size(), "leaf"));
  }
  const bk::ModelParams& p = s.args.model;
  return fmt::format("graph: {} (layers {}, hidden {}, heads {}, batch {}, {}): {}, {}\n", s.args.graph,
                     p.layers, p.hidden, p.heads, p.batch, bk::dtype_name(p.dtype),
                     bk::count_of(g.nodes().size(), "node"), bk::count_of(g.leafs().size(), "leaf"));
}

std::string backends_line(const SchedSession& s) {
  std::string out = "backends (priority order):";
  for (size_t i = 0; i < s.backends.size(); ++i) {
    const bk::Device& d = s.backends[i]->device();
    out += fmt::format("{} {} ({})", i == 0 ? "" : ",", d.name(), d.description());
  }
  return out + "\n";
}

std::string weights_line(const SchedSession& s) {
  std::vector<size_t> bytes(s.backends.size(), 0);
  for (size_t i = 0; i < s.weights.size(); ++i) bytes[s.weight_device_of[i]] += s.weights[i]->nbytes();
  std::string out = "weights:";
  bool first = true;
  for (size_t b = 0; b < bytes.size(); ++b) {
    if (bytes[b] == 0) continue;
    out += fmt::format("{} {} on {}", first ? "" : ",", bk::format_bytes(bytes[b]),
                       s.backends[b]->device().name());
    first = false;
  }
  return (first ? "weights: none" : out) +
         fmt::format("; offload {}, copies {}\n", s.args.no_offload ? "off" : "on", s.args.copies);
}

// One input per line of the cell.
std::string inputs_text(const bk::SchedReport& r, const bk::SplitReport& split) {
  if (split.inputs.empty()) return "-";
  std::string out;
  for (const bk::SplitInputReport& in : split.inputs) {
    out += fmt::format("{}{} from {} ({})", out.empty() ? "" : "\n", in.tensor->name,
                       r.backends[static_cast<size_t>(in.from)], bk::format_bytes(in.bytes));
  }
  return out;
}

std::string splits_table(const bk::SchedReport& r, const TermStyle& style) {
  Table table({{"split", Align::right},
               {"backend"},
               {"nodes", Align::right},
               {"first .. last", Align::left, true},
               {"compute", Align::right},
               {"inputs copied in", Align::left, true}});
  for (size_t k = 0; k < r.splits.size(); ++k) {
    const bk::SplitReport& s = r.splits[k];
    table.add_row({std::to_string(k), r.backends[static_cast<size_t>(s.backend)],
                   fmt::format("{}-{}", s.first_node, s.last_node),
                   fmt::format("{} .. {}", r.nodes[static_cast<size_t>(s.first_node)].tensor->name,
                               r.nodes[static_cast<size_t>(s.last_node)].tensor->name),
                   r.planned ? bk::format_bytes(s.compute_bytes) : "-", inputs_text(r, s)});
  }
  return table.render(style);
}

std::string nodes_table(const bk::SchedReport& r, const TermStyle& style) {
  Table table({{"node", Align::right},
               {"name", Align::left, true},
               {"op"},
               {"backend"},
               {"cause"},
               {"why", Align::left, true}});
  for (const bk::NodeReport& n : r.nodes) {
    table.add_row({std::to_string(n.index), n.tensor->name, std::string(bk::op_name(n.tensor->op)),
                   r.backends[static_cast<size_t>(n.backend)], std::string(bk::cause_name(n.cause)),
                   n.sentence});
    for (const bk::PassedOver& p : n.passed_over) {
      table.add_row({"", "", "", TableCell("not " + r.backends[static_cast<size_t>(p.backend)], Tone::dim),
                     TableCell(std::string(bk::pass_reason_name(p.reason)), Tone::dim),
                     TableCell(p.detail, Tone::dim)});
    }
  }
  return table.render(style);
}

std::string totals_text(const bk::SchedReport& r) {
  std::string buffers, counts;
  for (size_t b = 0; b < r.backends.size(); ++b) {
    buffers += fmt::format("{}{} {}", b == 0 ? "" : ", ", r.backends[b],
                           bk::format_bytes(r.compute_buffer_bytes[b]));
    counts += fmt::format("{}{} {}", b == 0 ? "" : ", ", r.backends[b], r.nodes_per_backend[b]);
  }
  return fmt::format("totals: {}, {}, {} copied per evaluation\nnodes per backend: {}\ncompute buffers: {}\n",
                     bk::count_of(r.splits.size(), "split"), bk::count_of(r.copies, "copy", "copies"),
                     bk::format_bytes(r.bytes_copied), counts, buffers);
}

// "offload_declined 21, unsupported_op 4" (SchedReport::idle orders them).
std::string passed_over_text(const bk::IdleBackend& idle) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : idle.passed_over)
    parts.push_back(fmt::format("{} {}", bk::pass_reason_name(reason), count));
  return parts.empty() ? "never considered" : fmt::format("{}", fmt::join(parts, ", "));
}

bool has_weights(const bk::SchedReport& r) {
  return std::any_of(r.leafs.begin(), r.leafs.end(),
                     [](const bk::LeafReport& l) { return std::string_view(l.kind) == "weight"; });
}

// Every idle device, and why; one that holds no weight but could run some node also gets the
// options that would put weights there.
std::string idle_devices_text(const bk::SchedReport& r) {
  std::string out;
  for (const bk::IdleBackend& idle : r.idle) {
    const std::string& name = r.backends[static_cast<size_t>(idle.backend)];
    out += fmt::format("{} runs no node; passed over: {} (--verbose gives each node's reason)\n", name,
                       passed_over_text(idle));
    if (idle.holds_weights || !idle.could_run || !has_weights(r)) continue;
    const std::vector<std::string> even(r.backends.size(),
                                        fmt::format("{:.2g}", 1.0 / static_cast<double>(r.backends.size())));
    out += fmt::format(
        "  it holds no weight; to give it work, put weights there: --weights-on {} or --weights-split {}\n",
        name, fmt::join(even, ","));
  }
  return out;
}

std::string run_text(const RunResult& run, const TermStyle& style) {
  Table table({{"output"},
               {"elements", Align::right},
               {"normalised error", Align::right},
               {"limit", Align::right},
               {"result"}});
  for (const OutputCheck& o : run.outputs) {
    table.add_row({o.name, std::to_string(o.elements), fmt::format("{:.3e}", o.error),
                   fmt::format("{:.3g}", run.limit),
                   TableCell(o.ok ? "ok" : "FAILED", o.ok ? Tone::good : Tone::bad)});
  }
  return "run: outputs against the float64 reference (same weights and inputs)\n" + table.render(style);
}

}  // namespace

std::string placement_text(const bk::SchedReport& report, bool verbose, const TermStyle& style) {
  std::string out = splits_table(report, style);
  if (verbose) out += "\n" + nodes_table(report, style);
  return out + "\n" + wrap_text(totals_text(report) + idle_devices_text(report), style.width);
}

std::string sched_text(const SchedSession& session, const bk::SchedReport& report, const RunResult* run,
                       const TermStyle& style) {
  std::string out =
      wrap_text(graph_line(session) + backends_line(session) + weights_line(session), style.width);
  out += "\n" + placement_text(report, session.args.verbose, style);
  if (run != nullptr) out += "\n" + run_text(*run, style);
  return out;
}

}  // namespace bkctl
