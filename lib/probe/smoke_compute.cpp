// SPDX-License-Identifier: MIT
// Level 2 of `bkctl smoke`: a conformance subset against a float64 reference and a timed matmul
// compared with a floor.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <functional>

#include "bk/graph.h"
#include "bk/ops.h"
#include "probe/bench_timer.h"
#include "probe/graph_data.h"
#include "probe/smoke_checks.h"
#include "probe/stats.h"
#include "probe/verify/device_run.h"
#include "probe/verify/limits.h"
#include "probe/verify/nmse.h"
#include "probe/verify/reference.h"

namespace bk {
namespace {

using Clock = std::chrono::steady_clock;

SmokeOutcome verdict(SmokeStatus status, std::string message) {
  SmokeOutcome outcome;
  outcome.status = status;
  outcome.message = std::move(message);
  return outcome;
}

// One conformance case: a graph with one output, judged against the float64 reference with
// the limit of its op and dtypes (probe/verify/limits.h, the conformance suite's table).
struct SmokeCase {
  std::string_view name;
  std::function<Tensor&(GraphBuilder&)> build;
};

// Runs `graph` on the device from seeded inputs (probe/graph_data.h) and judges `out`.
struct JudgedRun {
  verify::DeviceRun run;
  Tensor* out;
  verify::Values want;
  double limit;

  JudgedRun(Device& device, Graph& graph, Tensor& output, uint64_t seed)
      : run(device, graph), out(&output), limit(verify::graph_limit(graph)) {
    verify::LeafValues inputs = graph_leaf_values(graph, seed);
    run.write_inputs(inputs);
    want = verify::Reference(graph, std::move(inputs)).values(output);
  }
  verify::NmseCheck check() const { return verify::check_nmse(run.read(*out), want, limit, *out); }
};

Tensor& input(GraphBuilder& g, DType type, int64_t ne0, int64_t ne1, const char* name) {
  return g.input(type, {ne0, ne1, 1, 1}, name);
}

const std::vector<SmokeCase>& smoke_cases() {
  static const std::vector<SmokeCase> cases = {
      {"mul_mat_f32_67x33x9",
       [](GraphBuilder& g) -> Tensor& {
         return ops::mul_mat(g, input(g, DType::F32, 67, 33, "w"), input(g, DType::F32, 67, 9, "x"));
       }},
      {"mul_mat_f16_64x32x5",
       [](GraphBuilder& g) -> Tensor& {
         return ops::mul_mat(g, input(g, DType::F16, 64, 32, "w"), input(g, DType::F32, 64, 5, "x"));
       }},
      {"add_f32_129x7_row",
       [](GraphBuilder& g) -> Tensor& {
         return ops::add(g, input(g, DType::F32, 129, 7, "a"), input(g, DType::F32, 129, 1, "b"));
       }},
      {"rms_norm_f32_257x3",
       [](GraphBuilder& g) -> Tensor& { return ops::rms_norm(g, input(g, DType::F32, 257, 3, "a"), 1e-5f); }},
      {"soft_max_f32_100x4",
       [](GraphBuilder& g) -> Tensor& {
         return ops::soft_max(g, input(g, DType::F32, 100, 4, "a"), nullptr, 0.5f);
       }},
      {"silu_f32_1000",
       [](GraphBuilder& g) -> Tensor& { return ops::silu(g, input(g, DType::F32, 1000, 1, "a")); }},
  };
  return cases;
}

struct CaseTally {
  int passed = 0;
  std::vector<std::string> failed;
  std::vector<std::string> unsupported;
  double worst_ratio = 0;  // largest NMSE / limit among the cases that ran
};

void run_case(Device& device, Backend& backend, const SmokeCase& c, uint64_t seed, CaseTally& tally) {
  GraphBuilder builder;
  Tensor& out = c.build(builder);
  Graph graph = builder.build({&out});
  for (const Tensor* node : graph.nodes()) {
    if (!device.supports_op(*node)) {
      tally.unsupported.push_back(fmt::format("{} ({})", c.name, device.unsupported_reason(*node)));
      return;
    }
  }
  JudgedRun judged(device, graph, out, seed);
  judged.run.compute(backend);
  const verify::NmseCheck check = judged.check();
  if (check.ok) {
    ++tally.passed;
    tally.worst_ratio = std::max(tally.worst_ratio, check.limit > 0 ? check.nmse / check.limit : 0.0);
  } else {
    tally.failed.push_back(fmt::format("{}: {}", c.name, check.message));
  }
}

// The benchmark matmul: 256^3, f32, one graph kept placed.
struct Matmul {
  static constexpr int64_t kSize = 256;
  GraphBuilder builder;
  Graph graph;
  std::unique_ptr<JudgedRun> judged;
  std::unique_ptr<Backend> backend;

  static double flops() { return 2.0 * kSize * kSize * kSize; }

  bool build(Device& device, std::string& reason) {
    Tensor& w = input(builder, DType::F32, kSize, kSize, "w");
    Tensor& x = input(builder, DType::F32, kSize, kSize, "x");
    Tensor& out = ops::mul_mat(builder, w, x);
    graph = builder.build({&out});
    if (!device.supports_op(out)) {
      reason = device.unsupported_reason(out);
      return false;
    }
    judged = std::make_unique<JudgedRun>(device, graph, out, 5);
    backend = device.init_backend();
    return true;
  }
  // One compute, waited for; returns its seconds.
  double time_once() {
    const Clock::time_point start = Clock::now();
    judged->run.compute(*backend);
    return seconds_since(start);
  }
  verify::NmseCheck check() const { return judged->check(); }
};

std::string floor_note(const std::optional<double>& floor) {
  return floor ? fmt::format("floor {:.4g} GFLOP/s", *floor) : std::string("no floor given");
}

}  // namespace

SmokeOutcome smoke_conformance(Device& device, const SmokeSettings&) {
  std::unique_ptr<Backend> backend = device.init_backend();
  CaseTally tally;
  uint64_t seed = 1;
  for (const SmokeCase& c : smoke_cases()) run_case(device, *backend, c, seed++, tally);
  const size_t total = smoke_cases().size();
  const std::string unsupported =
      tally.unsupported.empty() ? "" : fmt::format("; unsupported: {}", fmt::join(tally.unsupported, "; "));
  SmokeOutcome outcome;
  if (!tally.failed.empty()) {
    outcome = verdict(SmokeStatus::fail,
                      fmt::format("{}: {} of {} cases wrong against the float64 reference: {}", device.name(),
                                  tally.failed.size(), total, fmt::join(tally.failed, "; ")));
  } else if (tally.passed == 0) {
    outcome = verdict(SmokeStatus::not_applicable,
                      fmt::format("{} runs none of the cases{}", device.name(), unsupported));
  } else {
    outcome = verdict(SmokeStatus::pass, fmt::format("{} of {} cases match the float64 reference{}",
                                                     tally.passed, total, unsupported));
  }
  outcome.metrics = {{"cases_passed", static_cast<double>(tally.passed)},
                     {"cases_failed", static_cast<double>(tally.failed.size())},
                     {"cases_unsupported", static_cast<double>(tally.unsupported.size())},
                     {"worst_nmse_over_limit", tally.worst_ratio}};
  return outcome;
}

SmokeOutcome smoke_matmul(Device& device, const SmokeSettings& settings) {
  Matmul mm;
  std::string reason;
  if (!mm.build(device, reason))
    return verdict(SmokeStatus::not_applicable, "f32 mul_mat unsupported: " + reason);
  mm.time_once();  // warm-up: pipelines, caches
  if (const verify::NmseCheck check = mm.check(); !check.ok) {
    return verdict(SmokeStatus::fail,
                   fmt::format("{}: the 256x256x256 f32 matmul is wrong: {}", device.name(), check.message));
  }
  // Medians of at least 5 repetitions, up to about half a second of them.
  std::vector<double> gflops;
  const Clock::time_point start = Clock::now();
  while (gflops.size() < 5 || (gflops.size() < 50 && seconds_since(start) < 0.5)) {
    gflops.push_back(Matmul::flops() / mm.time_once() / 1e9);
  }
  const SampleStats stats = summarize(gflops);
  const std::optional<double>& floor = settings.floors.matmul_f32_gflops;
  SmokeOutcome outcome =
      floor && stats.median < *floor
          ? verdict(SmokeStatus::fail,
                    fmt::format("{}: f32 matmul median {:.4g} GFLOP/s is below the floor {:.4g}",
                                device.name(), stats.median, *floor))
          : verdict(SmokeStatus::pass, fmt::format("f32 matmul 256x256x256: median {:.4g} GFLOP/s ({})",
                                                   stats.median, floor_note(floor)));
  add_throughput_metrics(outcome, stats);
  return outcome;
}

void add_throughput_metrics(SmokeOutcome& outcome, const SampleStats& gflops) {
  outcome.metrics.push_back({"median_gflops", gflops.median});
  outcome.metrics.push_back({"min_gflops", gflops.min});
  outcome.metrics.push_back({"max_gflops", gflops.max});
  outcome.metrics.push_back({"cv", gflops.cv});
  outcome.metrics.push_back({"samples", static_cast<double>(gflops.count)});
}

}  // namespace bk
