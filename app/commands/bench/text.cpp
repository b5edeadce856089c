// SPDX-License-Identifier: MIT
// `bkctl bench`: the aligned table (grouped by test) and CSV.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "bk/strings.h"
#include "bk/units.h"
#include "commands/bench/cli.h"
#include "output/table.h"
#include "output/wrap.h"

namespace bkctl {
namespace {

// Three significant digits, enough for a rate or a latency, without scientific notation.
std::string num(double v) {
  const double a = std::fabs(v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

const char* group_name(const std::string& group) {
  if (group == "peak") return "Peak arithmetic (FMA chains)";
  if (group == "mul_mat") return "MUL_MAT (weights dtype, f32 activations): M = N = K; gemv N = 1";
  if (group == "bandwidth") return "Device memory bandwidth (bytes read + written)";
  if (group == "transfer") return "Transfers (bytes moved once)";
  if (group == "latency") return "Latency";
  if (group == "graph") return "Whole graphs through the scheduler";
  if (group == "model") return "Model (GGUF weights; pp: one batch of tokens, tg: one token at a time)";
  return "Other";
}

// Graphs say which devices they were scheduled over: with --devices, not only the bench device.
std::string group_title(const std::string& group, const BenchArgs& args, const bk::Device& device) {
  if (group != "graph" && group != "model") return group_name(group);
  return fmt::format("{} over {}", group_name(group), fmt::join(graph_device_names(args, device), ", "));
}

std::string peaks_table(const DeviceBench& bench, const TermStyle& style) {
  if (bench.peaks.empty()) return "peak: nothing measured\n";
  Table table({{"peak"}, {"value", Align::right}, {"unit"}, {"source", Align::left, true}});
  for (const Peak& p : bench.peaks) table.add_row({p.name, num(p.value), p.unit, p.source});
  return table.render(style);
}

// The notes under one group's table: each distinct reason once, numbered from 1.
class Notes {
 public:
  // "[2]": the number of this note, given one the first time it is seen.
  std::string mark(const std::string& text) {
    auto it = std::find(notes_.begin(), notes_.end(), text);
    if (it == notes_.end()) it = notes_.insert(notes_.end(), text);
    return fmt::format("[{}]", it - notes_.begin() + 1);
  }
  std::string render(size_t width) const {
    std::string out;
    for (size_t i = 0; i < notes_.size(); ++i) out += fmt::format("  [{}] {}\n", i + 1, printable(notes_[i]));
    return wrap_text(out, width, 4);
  }

 private:
  std::vector<std::string> notes_;
};

std::string status_cell(const BenchResult& r, Notes& notes) {
  const std::string status = bench_status_name(r.status);
  if (r.status == BenchStatus::ok && !r.ci_met) {
    return "ok " + notes.mark(fmt::format("ok, but noisy: after {} samples (the budget and its overtime) the "
                                          "median's 95% interval is still {:.1f}% wide either side; compare "
                                          "with care",
                                          r.stats.count, 100 * bk::median_spread(r.stats)));
  }
  return status + (r.reason.empty() ? "" : " " + notes.mark(status + ": " + r.reason));
}

std::string splits_cell(const BenchResult& r) {
  std::string out;
  for (const SplitInfo& s : r.splits) {
    out += fmt::format("{}{}:{} nodes", out.empty() ? "" : ", ", s.device, s.nodes);
  }
  return out;
}

// Where each graph's evaluation went, split by split (profiled, so the shares are of the
// serialised time, not of the pipelined evaluation the eval/s row measured).
std::string split_breakdown(const DeviceBench& bench, const TermStyle& style) {
  Table table({{"graph"},
               {"split", Align::right},
               {"device"},
               {"nodes", Align::right},
               {"GFLOP", Align::right},
               {"copy in ms", Align::right},
               {"compute ms", Align::right},
               {"share", Align::right}});
  for (const BenchResult& r : bench.results) {
    if (r.status != BenchStatus::ok || r.splits.empty()) continue;
    double total = 0;
    for (const SplitInfo& s : r.splits) total += s.copy_s + s.compute_s;
    for (size_t i = 0; i < r.splits.size(); ++i) {
      const SplitInfo& s = r.splits[i];
      table.add_row({i == 0 ? r.test.graph : "", std::to_string(i), s.device, std::to_string(s.nodes),
                     num(s.flops / 1e9), num(s.copy_s * 1e3), num(s.compute_s * 1e3),
                     total > 0 ? fmt::format("{:.0f}%", 100 * (s.copy_s + s.compute_s) / total) : "-"});
    }
  }
  if (table.empty()) return {};
  const std::string title = wrap_text(
      "Per split (medians of profiled evaluations, each split's copies and compute waited for)", style.width);
  return "\n" + style.paint(title, Tone::header) + "\n" + table.render(style);
}

// Per model test: the memory each device holds for it and the --check verdict.
std::string model_details(const DeviceBench& bench, size_t width) {
  std::string out;
  for (const BenchResult& r : bench.results) {
    if (r.test.group != "model" || (r.memory.empty() && !r.check_nmse)) continue;
    std::vector<std::string> memory;
    for (const BenchResult::Memory& m : r.memory) {
      memory.push_back(m.mapped == 0 ? fmt::format("{} {}", m.device, bk::format_bytes(m.bytes))
                                     : fmt::format("{} {} ({} mapped from the file)", m.device,
                                                   bk::format_bytes(m.bytes), bk::format_bytes(m.mapped)));
    }
    std::string line = fmt::format("{} {}: memory {}", r.test.op, r.test.label(),
                                   memory.empty() ? "-" : fmt::format("{}", fmt::join(memory, ", ")));
    if (r.check_nmse) {
      line += fmt::format("; logits against the float64 reference: NMSE {:.2e}, limit {:.2e}", *r.check_nmse,
                          r.check_limit.value_or(0));
    }
    out += line + "\n";
  }
  return out.empty() ? out : "\n" + wrap_text(out, width, 4);
}

// Which timer the results used: device events for kernels where the device has them.
std::string timer_line(const DeviceBench& bench, const bk::TimingOptions& timing) {
  bool device = false;
  for (const BenchResult& r : bench.results) device = device || r.timer == std::string(kTimerDevice);
  return fmt::format("  timing: {}, {:g} s budget per test, {}\n",
                     device ? "device events for mul_mat/add/cpy, host clock after synchronize for the rest"
                            : "host clock after synchronize",
                     timing.budget_s, bk::count_of(static_cast<size_t>(timing.warmup), "warm-up run"));
}

}  // namespace

std::string bench_text(const BenchRun& run, const TermStyle& style) {
  std::string out;
  for (const DeviceBench& bench : run.devices) {
    const std::string title = fmt::format("{} -- {}", bench.device->name(), bench.device->description());
    out += style.paint(wrap_text(printable(title), style.width), Tone::header) + "\n";
    out += wrap_text(timer_line(bench, run.timing), style.width, 4) + "\n" + peaks_table(bench, style);
    std::string group;
    std::unique_ptr<Table> table;
    Notes notes;
    const auto flush = [&] {
      if (table && !table->empty()) {
        out +=
            "\n" +
            style.paint(wrap_text(group_title(group, run.args, *bench.device), style.width), Tone::header) +
            "\n" + table->render(style) + notes.render(style.width);
      }
      notes = Notes();
    };
    for (const BenchResult& r : bench.results) {
      if (r.test.group != group) {
        flush();
        group = r.test.group;
        table = std::make_unique<Table>(std::vector<TableColumn>{{"test"},
                                                                 {"dtype"},
                                                                 {"size"},
                                                                 {"median", Align::right},
                                                                 {"min", Align::right},
                                                                 {"max", Align::right},
                                                                 {"unit"},
                                                                 {"cv%", Align::right},
                                                                 {"n", Align::right},
                                                                 {"%peak", Align::right},
                                                                 {"status", Align::left, true}});
      }
      const bool ok = r.status == BenchStatus::ok;
      const std::string name = r.test.graph.empty() ? r.test.op : r.test.op + " " + r.test.graph;
      std::string status = status_cell(r, notes);
      if (ok && !r.splits.empty()) status = "ok (" + splits_cell(r) + ")";
      const Tone tone = ok ? Tone::plain : r.status == BenchStatus::error ? Tone::bad : Tone::dim;
      table->add_row({name,
                      r.test.dtype,
                      r.test.label(),
                      ok ? num(r.stats.median) : "-",
                      ok ? num(r.stats.min) : "-",
                      ok ? num(r.stats.max) : "-",
                      r.unit,
                      ok ? fmt::format("{:.1f}", 100 * r.stats.cv) : "-",
                      ok ? std::to_string(r.stats.count) : "-",
                      r.fraction ? fmt::format("{:.0f}%", 100 * *r.fraction) : "-",
                      {status, tone}});
    }
    flush();
    out += model_details(bench, style.width);
    out += split_breakdown(bench, style);
    out += "\n";
  }
  return out;
}

std::string bench_csv(const BenchRun& run) {
  std::string out =
      "device,group,test,dtype,size,unit,status,reason,median,min,max,cv,samples,fraction_of_peak,timer\n";
  const auto quote = [](std::string s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (const DeviceBench& bench : run.devices) {
    for (const BenchResult& r : bench.results) {
      const bool ok = r.status == BenchStatus::ok;
      const auto v = [ok](double x) { return ok ? fmt::format("{:.6g}", x) : std::string(); };
      out +=
          fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", quote(bench.device->name()),
                      r.test.group, quote(r.test.graph.empty() ? r.test.op : r.test.op + " " + r.test.graph),
                      r.test.dtype, r.test.size > 0 ? std::to_string(r.test.size) : "", r.unit,
                      bench_status_name(r.status), quote(r.reason), v(r.stats.median), v(r.stats.min),
                      v(r.stats.max), v(r.stats.cv), ok ? std::to_string(r.stats.count) : "",
                      r.fraction ? fmt::format("{:.4f}", *r.fraction) : "", r.timer);
    }
  }
  return out;
}

std::string plan_listing(const BenchPlan& plan) {
  Table table({{"id"}, {"group"}, {"size"}});
  for (const BenchTest& t : plan.tests) table.add_row({t.id(), t.group, t.label()});
  return table.render(TermStyle{false});
}

}  // namespace bkctl
