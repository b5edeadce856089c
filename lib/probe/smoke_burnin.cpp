// SPDX-License-Identifier: MIT
// Level 3 of `bkctl smoke`, the burn-in: memory filled with a pattern, a checked matmul sized to
// keep the device busy for --duration, a timeline each second, the fill verified again at the
// end; fails on a wrong result, a memory mismatch, a throughput drop, an ECC error count that
// grew, or a PCIe link below its maximum under load.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bk/error.h"
#include "bk/units.h"
#include "probe/burnin_timeline.h"
#include "probe/checked_gemm.h"
#include "probe/memory_fill.h"
#include "probe/smoke_checks.h"

namespace bk {
namespace {

constexpr double kMinRunSeconds = 0.02;  // a run this long hides launch and synchronisation costs
constexpr int64_t kMaxGemm = 8192;

// The highest value a reading took over the timeline.
std::optional<double> highest(const std::vector<SmokeSample>& timeline, std::string_view name) {
  std::optional<double> best;
  for (const SmokeSample& s : timeline) {
    if (const auto v = telemetry_value(s.telemetry, name); v && (!best || *v > *best)) best = v;
  }
  return best;
}

// What went wrong, from the telemetry: error counters that grew, a link below its maximum.
void telemetry_problems(const std::vector<TelemetryReading>& before, const std::vector<SmokeSample>& timeline,
                        std::vector<std::string>& problems, std::vector<std::string>& notes) {
  if (timeline.empty()) return;
  const std::vector<TelemetryReading>& after = timeline.back().telemetry;
  for (const char* counter : {"ecc_uncorrected_total", "ecc_corrected_total"}) {
    const auto first = telemetry_value(before, counter);
    const auto last = telemetry_value(after, counter);
    if (first && last && *last > *first) {
      problems.push_back(fmt::format("{} grew from {:.0f} to {:.0f} during the run", counter, *first, *last));
    }
  }
  // Links train down when idle: what counts is the best the link did under load.
  const auto gen = highest(timeline, "pcie_gen"), gen_max = highest(timeline, "pcie_gen_max");
  const auto width = highest(timeline, "pcie_width"), width_max = highest(timeline, "pcie_width_max");
  if (gen && gen_max && width && width_max && (*gen < *gen_max || *width < *width_max)) {
    problems.push_back(fmt::format(
        "the PCIe link ran at gen {:.0f} x{:.0f} under load, below the gen {:.0f} x{:.0f} the device and "
        "system allow (a riser, the slot, or a BIOS setting?)",
        *gen, *width, *gen_max, *width_max));
  }
  unsigned long long reasons = 0;
  for (const SmokeSample& s : timeline) {
    if (const auto r = telemetry_value(s.telemetry, "throttle_reasons"))
      reasons |= static_cast<unsigned long long>(*r);
  }
  constexpr unsigned long long kHeatOrPower = 0x8 | 0x20 | 0x40 | 0x80;  // hw slowdown, thermal, power brake
  if ((reasons & kHeatOrPower) != 0) {
    notes.push_back(
        fmt::format("the driver reported clock throttling for heat or power (reasons {:#x})", reasons));
  }
}

// The memory held filled through the run, and what its checks found.
class HeldFill {
 public:
  HeldFill(Device& device, size_t wanted, size_t can) : wanted_(wanted) {
    const size_t bytes = std::min(wanted, can);
    if (bytes >= 8) fill_ = std::make_unique<MemoryFill>(device, bytes);
  }
  size_t bytes() const { return fill_ ? fill_->bytes() : 0; }
  size_t wanted() const { return wanted_; }
  size_t mismatches() const { return mismatches_; }

  void write() {
    if (fill_) fill_->write(PatternKind::random);
  }
  // Verifies the pattern; a mismatch becomes a problem that says `when`.
  void verify(const char* when, std::vector<std::string>& problems) {
    if (!fill_) return;
    const VerifyResult result = fill_->verify(PatternKind::random);
    mismatches_ += result.mismatches;
    if (!result.ok()) {
      problems.push_back(
          fmt::format("memory {}: {}", when, mismatch_text(PatternKind::random, result, bytes())));
    }
  }

 private:
  size_t wanted_;
  size_t mismatches_ = 0;
  std::unique_ptr<MemoryFill> fill_;
};

struct BurnIn {
  std::unique_ptr<CheckedGemm> gemm;
  std::unique_ptr<HeldFill> fill;
};

// The matmul first (it must fit), then the fill in what is free after it, less a margin for the
// driver and the stream.
BurnIn prepare(Device& device, Backend& backend, const SmokeSettings& settings) {
  BurnIn b;
  const MemoryInfo memory = device.memory();
  const size_t wanted = memory_to_use(device, settings);  // a share is of what was free before the matmul
  const size_t gemm_budget = std::min(device.buffer_type().max_size(), memory.free / 8);
  b.gemm = sized_gemm(device, backend, kMinRunSeconds, gemm_budget, kMaxGemm);
  const size_t free_now = device.memory().free;
  const size_t margin = memory.total / 50;
  const size_t can = free_now > margin ? (free_now - margin) / 8 * 8 : 0;
  b.fill = std::make_unique<HeldFill>(device, wanted, can);
  return b;
}

// The checked matmuls, run for the duration.
struct RunLog {
  std::vector<double> gflops;  // each run's
  size_t wrong = 0;
  std::string first_wrong;  // when and where
  double wall = 0;
  double cores_busy = 0;  // process CPU seconds over wall seconds
  std::vector<TelemetryReading> telemetry_before;
  std::vector<SmokeSample> timeline;
};

RunLog run_matmuls(Device& device, Backend& backend, CheckedGemm& gemm, const SmokeSettings& settings) {
  RunLog log;
  BurnInTimeline timeline(device, settings, gemm.flops());
  log.telemetry_before = device.telemetry();
  while (log.gflops.empty() || timeline.elapsed() < settings.duration_seconds) {
    const double seconds = gemm.run(backend);
    const GemmCheck check = gemm.check();
    log.gflops.push_back(gemm.flops() / seconds / 1e9);
    if (!check.ok && log.wrong++ == 0) {
      log.first_wrong = fmt::format("at {:.1f} s, {}", timeline.elapsed(), check.message);
    }
    timeline.add_run(seconds, !check.ok);
  }
  timeline.finish();
  log.wall = timeline.elapsed();
  log.cores_busy = timeline.cores_busy();
  log.timeline = std::move(timeline.samples());
  return log;
}

// Why the throughput dropped, as far as the process can tell: on a device that computes on the
// host, a CPU share that fell with the throughput means other load took the cores.
std::string drop_cause(const Device& device, const ThroughputDrop& drop) {
  const bool share_fell = drop.worst_cores < drop.baseline_cores * (1 - drop.drop / 2);
  if (device.type() != DeviceType::cpu || !share_fell) return "throttling?";
  return fmt::format(
      "this process had {:.2g} cores busy there against {:.2g} at the start: other load on the host",
      drop.worst_cores, drop.baseline_cores);
}

// Wrong results, a throughput drop, the floors.
void result_problems(const Device& device, const RunLog& log, const SampleStats& stats,
                     const std::optional<ThroughputDrop>& drop, const SmokeSettings& settings,
                     std::vector<std::string>& problems) {
  if (log.wrong > 0) {
    problems.push_back(
        fmt::format("{} of {} results wrong, the first {}", log.wrong, log.gflops.size(), log.first_wrong));
  }
  if (drop && drop->drop > settings.max_drop) {
    problems.push_back(fmt::format(
        "throughput fell {:.0f}% below its start ({:.4g} GFLOP/s; {:.4g} in the stretch ending at {:.0f} s), "
        "more than --max-drop {:.0f}% ({})",
        100 * drop->drop, drop->baseline_gflops, drop->worst_gflops, drop->worst_at, 100 * settings.max_drop,
        drop_cause(device, *drop)));
  }
  const SmokeFloors& floors = settings.floors;
  if (floors.sustained_f32_gflops && stats.median < *floors.sustained_f32_gflops) {
    problems.push_back(fmt::format("median {:.4g} GFLOP/s is below the floor {:.4g}", stats.median,
                                   *floors.sustained_f32_gflops));
  }
  if (floors.sustained_max_cv && stats.cv > *floors.sustained_max_cv) {
    problems.push_back(
        fmt::format("throughput varies by cv {:.3g}, more than the allowed {:.3g} (throttling?)", stats.cv,
                    *floors.sustained_max_cv));
  }
}

}  // namespace

SmokeOutcome smoke_sustained(Device& device, const SmokeSettings& settings) {
  std::unique_ptr<Backend> backend = device.init_backend();
  BurnIn burn;
  try {
    burn = prepare(device, *backend, settings);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::unsupported) throw;
    SmokeOutcome outcome;
    outcome.status = SmokeStatus::not_applicable;
    outcome.message = e.what();
    return outcome;
  }
  HeldFill& fill = *burn.fill;
  std::vector<std::string> memory_problems, problems, notes;
  fill.write();
  fill.verify("as filled", memory_problems);
  if (fill.bytes() < fill.wanted()) {
    notes.push_back(fmt::format("filled {} of the {} asked: the matmul and the driver need the rest",
                                format_bytes(fill.bytes()), format_bytes(fill.wanted())));
  }
  RunLog log = run_matmuls(device, *backend, *burn.gemm, settings);
  fill.verify("after the run", memory_problems);

  const SampleStats stats = summarize(log.gflops);
  const std::optional<ThroughputDrop> drop = throughput_drop(log.timeline, settings.duration_seconds);
  result_problems(device, log, stats, drop, settings, problems);
  problems.insert(problems.end(), memory_problems.begin(), memory_problems.end());
  telemetry_problems(log.telemetry_before, log.timeline, problems, notes);

  SmokeOutcome outcome;
  const std::string note = notes.empty() ? "" : fmt::format("; {}", fmt::join(notes, "; "));
  if (problems.empty()) {
    outcome.message = fmt::format(
        "{} checked {}^3 matmuls in {:.3g} s, all correct: median {:.4g} GFLOP/s, min {:.4g}, cv {:.3g}; {} "
        "held and verified before and after{}",
        log.gflops.size(), burn.gemm->size(), log.wall, stats.median, stats.min, stats.cv,
        format_bytes(fill.bytes()), note);
  } else {
    outcome.status = SmokeStatus::fail;
    outcome.message = fmt::format("{} burn-in: {}{}", device.name(), fmt::join(problems, "; "), note);
  }
  add_throughput_metrics(outcome, stats);
  outcome.metrics.push_back({"wrong_results", static_cast<double>(log.wrong)});
  outcome.metrics.push_back({"matrix_size", static_cast<double>(burn.gemm->size())});
  outcome.metrics.push_back({"memory_filled_bytes", static_cast<double>(fill.bytes())});
  outcome.metrics.push_back({"memory_mismatched_words", static_cast<double>(fill.mismatches())});
  outcome.metrics.push_back({"process_cpu_cores_busy", log.cores_busy});
  if (drop) {
    outcome.metrics.push_back({"baseline_gflops", drop->baseline_gflops});
    outcome.metrics.push_back({"throughput_drop", drop->drop});
  }
  outcome.timeline = std::move(log.timeline);
  return outcome;
}

}  // namespace bk
