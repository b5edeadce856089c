// SPDX-License-Identifier: MIT
// `bkctl bench`: the test plan, the selection options and their errors.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "bk/error.h"
#include "bk/strings.h"
#include "bk/units.h"
#include "commands/bench/cli.h"
#include "exit_codes.h"
#include "probe/model_graphs.h"

namespace bkctl {
namespace {

// Sides: mul_mat is side^3 (M = N = K); gemv is a side x side weight times one column, decode's
// shape, bound by reading the weight (4096: 64 MiB of f32, past every cache); bandwidth and
// transfer tests move side^2 f32 elements, so 1024 is 4 MiB (in cache on most machines) and 4096
// is 64 MiB (in memory).
const std::vector<int64_t> kMatSides = {256, 512, 1024};
const std::vector<int64_t> kGemvSides = {4096};
const std::vector<int64_t> kQuickGemvSides = {2048};
const std::vector<int64_t> kMemSides = {1024, 4096};
// --quick: one of each; the memory side (16 MiB buffers) is past most L2 caches.
const std::vector<int64_t> kQuickMatSides = {512};
const std::vector<int64_t> kQuickMemSides = {2048};
const std::vector<std::string> kDtypes = {"f32", "f16", "bf16"};
// Weights only, so mul_mat only (the peak kernels are float arithmetic); not run by default.
const std::vector<std::string> kQuantizedDtypes = {"q8_0", "q4_0", "q4_k", "q6_k"};

bool quantized_name(const std::string& d) {
  return std::find(kQuantizedDtypes.begin(), kQuantizedDtypes.end(), d) != kQuantizedDtypes.end();
}

struct OpDef {
  const char* name;
  const char* group;
  bool per_dtype;  // mul_mat, peak
  bool sized;
};

const std::vector<OpDef>& op_defs() {
  static const std::vector<OpDef> defs = {
      {"peak", "peak", true, false},
      {"mul_mat", "mul_mat", true, true},
      {"gemv", "mul_mat", true, true},
      {"add", "bandwidth", false, true},
      {"cpy", "bandwidth", false, true},
      {"d2d", "bandwidth", false, true},
      {"h2d", "transfer", false, true},
      {"d2h", "transfer", false, true},
      {"h2d_pinned", "transfer", false, true},
      {"d2h_pinned", "transfer", false, true},
      {"graph_latency", "latency", false, false},
      {"event_latency", "latency", false, false},
      {"graph", "graph", false, false},
  };
  return defs;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& item : bk::split(text, ',')) {
    if (!bk::trim(item).empty()) out.push_back(bk::to_lower(bk::trim(item)));
  }
  return out;
}

std::vector<int64_t> parse_sides(const std::string& text) {
  std::vector<int64_t> sides;
  for (const std::string& item : split_list(text)) {
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (end != item.c_str() + item.size() || v < 16 || v > 16384) {
      usage_error(
          fmt::format("--size '{}' is not a side between 16 and 16384 (mul_mat runs side^3, memory tests "
                      "move side^2 f32 elements), e.g. --size 256,1024",
                      item));
    }
    sides.push_back(v);
  }
  return sides;
}

}  // namespace

std::vector<std::string> bench_op_names() {
  std::vector<std::string> names;
  for (const OpDef& d : op_defs()) names.emplace_back(d.name);
  return names;
}

double parse_tolerance(const std::string& text) {
  std::string t = bk::trim(text);
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !(v >= 0)) {
    usage_error(fmt::format("--tolerance '{}' is not a percentage like 10%", text));
  }
  return percent || v >= 1 ? v / 100 : v;
}

bk::TimingOptions timing_options(const BenchArgs& args) {
  const std::string budget = args.quick && args.budget == kDefaultBudget ? kQuickBudget : args.budget;
  std::string t = bk::trim(budget);
  if (t.ends_with("ms")) {
    t.resize(t.size() - 2);
  } else if (t.ends_with('s')) {
    t.pop_back();
  }
  const double scale = bk::trim(budget).ends_with("ms") ? 1e-3 : 1.0;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !(v > 0) || v * scale > 60) {
    usage_error(fmt::format("--budget '{}' is not a time per test between 0 and 60 s, e.g. 0.5s or 200ms",
                            args.budget));
  }
  if (args.warmup < 0 || args.warmup > 100)
    usage_error(fmt::format("--warmup {} is not between 0 and 100", args.warmup));
  bk::TimingOptions options;
  options.budget_s = v * scale;
  options.warmup = args.warmup;
  return options;
}

// --model: pp and tg of the model (--op may pick one), and nothing else.
BenchPlan model_plan(const BenchArgs& args) {
  const std::string name = model_test_name(args);
  BenchPlan plan;
  for (const std::string& op : split_list(args.ops.empty() ? "pp,tg" : args.ops)) {
    if (op != "pp" && op != "tg")
      usage_error(fmt::format("--op '{}' with --model: the model tests are pp and tg", op));
    plan.tests.push_back({"model", op, "", op == "pp" ? args.pp : args.tg, name});
  }
  return plan;
}

BenchPlan make_plan(const BenchArgs& args) {
  if (!args.model.empty()) return model_plan(args);
  const std::vector<std::string> names = bench_op_names();
  std::vector<std::string> ops = split_list(args.ops);
  for (const std::string& op : ops) {
    if (std::find(names.begin(), names.end(), op) == names.end())
      usage_error(fmt::format("--op '{}' is not a bench test; tests: {}", op, fmt::join(names, ", ")));
  }
  std::vector<std::string> dtypes = split_list(args.dtypes);
  for (const std::string& d : dtypes) {
    if (std::find(kDtypes.begin(), kDtypes.end(), d) == kDtypes.end() && !quantized_name(d)) {
      usage_error(fmt::format("--dtype '{}' is not one of {}, {}", d, fmt::join(kDtypes, ", "),
                              fmt::join(kQuantizedDtypes, ", ")));
    }
  }
  if (dtypes.empty()) dtypes = kDtypes;
  std::vector<std::string> graphs;
  for (std::string_view g : bk::model_graph_names()) graphs.emplace_back(g);
  if (!args.graph.empty()) {
    const std::string g = bk::to_lower(bk::trim(args.graph));
    if (std::find(graphs.begin(), graphs.end(), g) == graphs.end())
      usage_error(fmt::format("--graph '{}' is not one of {}", args.graph, fmt::join(graphs, ", ")));
    graphs = {g};
    if (ops.empty()) ops = {"graph"};  // --graph alone: just the graph
  }
  const std::vector<int64_t> sides = parse_sides(args.sizes);
  BenchPlan plan;
  for (const OpDef& def : op_defs()) {
    if (!ops.empty() && std::find(ops.begin(), ops.end(), def.name) == ops.end()) continue;
    const bool product = std::string(def.group) == "mul_mat";  // mul_mat and gemv
    const bool gemv = std::string(def.name) == "gemv";
    const std::vector<int64_t>& mat_sides = gemv         ? (args.quick ? kQuickGemvSides : kGemvSides)
                                            : args.quick ? kQuickMatSides
                                                         : kMatSides;
    const std::vector<int64_t>& mem_sides = args.quick ? kQuickMemSides : kMemSides;
    const std::vector<int64_t> op_sides = !def.sized       ? std::vector<int64_t>{0}
                                          : !sides.empty() ? sides
                                          : product        ? mat_sides
                                                           : mem_sides;
    const std::vector<std::string> op_dtypes = def.per_dtype ? dtypes : std::vector<std::string>{""};
    if (std::string(def.name) == "graph") {
      for (const std::string& g : graphs) plan.tests.push_back({def.group, def.name, "", 0, g});
      continue;
    }
    for (const std::string& d : op_dtypes) {
      if (quantized_name(d) && !product) continue;  // no peak kernel for weights-only types
      const int64_t block = quantized_name(d) ? bk::dtype_block(*bk::dtype_from_name(d)) : 1;
      for (int64_t s : op_sides) {
        if (s % block != 0) {
          usage_error(
              fmt::format("--size {} for {} {}: a {} row is whole blocks of {} elements; give sizes that "
                          "are multiples of {}",
                          s, def.name, d, d, block, block));
        }
        plan.tests.push_back({def.group, def.name, d, s, ""});
      }
    }
  }
  return plan;
}

BenchResult result_for(const BenchTest& test) {
  BenchResult result{test};
  if (test.group == "peak" || test.group == "mul_mat") {
    result.unit = "GFLOP/s";
  } else if (test.group == "bandwidth" || test.group == "transfer") {
    result.unit = "GB/s";
  } else if (test.group == "latency") {
    result.unit = "us";
    result.higher_is_better = false;
  } else if (test.group == "model") {
    result.unit = "tok/s";
  } else {
    result.unit = "eval/s";
  }
  return result;
}

std::string BenchTest::id() const {
  std::string out = op;
  if (!graph.empty()) out += "/" + graph;
  if (!dtype.empty()) out += "/" + dtype;
  if (size > 0) out += "/" + std::to_string(size);
  return out;
}

std::string BenchTest::label() const {
  if (size <= 0) return "";
  if (op == "mul_mat") return fmt::format("{}^3", size);
  if (op == "gemv") return fmt::format("{}^2 x 1", size);
  if (group == "model") return fmt::format("{} tokens", size);
  return bk::format_bytes(static_cast<size_t>(size * size) * sizeof(float));
}

const char* bench_status_name(BenchStatus status) noexcept {
  switch (status) {
    case BenchStatus::ok:
      return "ok";
    case BenchStatus::unsupported:
      return "unsupported";
    case BenchStatus::skipped:
      return "skipped";
    case BenchStatus::error:
      return "error";
  }
  return "error";
}

}  // namespace bkctl
