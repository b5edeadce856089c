// SPDX-License-Identifier: MIT
#include "probe/burnin_timeline.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>

#include "probe/stats.h"

namespace bk {
namespace {

constexpr double kWindowSeconds = 1;
constexpr double kProgressSeconds = 5;

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

std::optional<double> telemetry_value(const std::vector<TelemetryReading>& readings, std::string_view name) {
  for (const TelemetryReading& r : readings) {
    if (r.name == name) return r.value;
  }
  return std::nullopt;
}

BurnInTimeline::BurnInTimeline(Device& device, const SmokeSettings& settings, double flops)
    : device_(device),
      settings_(settings),
      flops_(flops),
      start_(Clock::now()),
      cpu_start_(process_cpu_seconds()),
      window_cpu_start_(cpu_start_),
      next_progress_(kProgressSeconds) {}

double BurnInTimeline::elapsed() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

double BurnInTimeline::cores_busy() const {
  const double t = elapsed();
  return t > 0 ? (process_cpu_seconds() - cpu_start_) / t : 0;
}

void BurnInTimeline::add_run(double seconds, bool wrong) {
  ++window_.runs;
  window_.wrong += wrong;
  busy_ += seconds;
  const double t = elapsed();
  if (t - window_start_ >= kWindowSeconds) close_window(t);
}

void BurnInTimeline::finish() {
  if (window_.runs > 0) close_window(elapsed());
}

void BurnInTimeline::close_window(double t) {
  window_.t = t;
  window_.gflops = busy_ > 0 ? flops_ * static_cast<double>(window_.runs) / busy_ / 1e9 : 0;
  window_.telemetry = device_.telemetry();
  const double cpu = process_cpu_seconds();
  window_.cores_busy = t > window_start_ ? (cpu - window_cpu_start_) / (t - window_start_) : 0;
  window_cpu_start_ = cpu;
  wrong_ += window_.wrong;
  samples_.push_back(std::move(window_));
  window_ = {};
  busy_ = 0;
  window_start_ = t;
  if (settings_.progress && t >= next_progress_) {
    next_progress_ += kProgressSeconds;
    const SmokeSample& last = samples_.back();
    const auto celsius = telemetry_value(last.telemetry, "temperature_c");
    // Whole seconds elapsed: a window that closes at 5.6 s is still the 5-second line.
    settings_.progress(fmt::format("sustained {:.0f}/{:.0f} s: {:.4g} GFLOP/s, {} wrong{}", std::floor(t),
                                   settings_.duration_seconds, last.gflops, wrong_,
                                   celsius ? fmt::format(", {:.0f} C", *celsius) : std::string()));
  }
}

std::optional<ThroughputDrop> throughput_drop(const std::vector<SmokeSample>& timeline,
                                              double duration_seconds) {
  const double baseline_end = std::max(kWindowSeconds, std::min(60.0, duration_seconds / 4));
  const double stretch = std::clamp(duration_seconds / 10, 1.0, 10.0);
  std::vector<double> baseline, baseline_cores;
  std::vector<const SmokeSample*> after;
  for (const SmokeSample& s : timeline) {
    if (s.runs == 0) continue;
    if (s.t <= baseline_end || baseline.empty()) {
      baseline.push_back(s.gflops);
      baseline_cores.push_back(s.cores_busy);
    } else {
      after.push_back(&s);
    }
  }
  if (after.empty()) return std::nullopt;
  ThroughputDrop result;
  result.baseline_gflops = summarize(baseline).median;
  result.baseline_cores = summarize(baseline_cores).median;
  result.worst_gflops = INFINITY;
  // Every stretch of consecutive windows that spans `stretch` seconds (or what is left).
  for (size_t first = 0; first < after.size(); ++first) {
    std::vector<double> values, cores;
    size_t last = first;
    const double begin = first == 0 ? baseline_end : after[first - 1]->t;
    for (; last < after.size(); ++last) {
      values.push_back(after[last]->gflops);
      cores.push_back(after[last]->cores_busy);
      if (after[last]->t - begin >= stretch) break;
    }
    const double value = summarize(values).median;
    if (value < result.worst_gflops) {
      result.worst_gflops = value;
      result.worst_cores = summarize(cores).median;
      result.worst_at = after[std::min(last, after.size() - 1)]->t;
    }
    if (last >= after.size()) break;  // the rest is shorter than a stretch
  }
  result.drop = result.baseline_gflops > 0 ? 1 - result.worst_gflops / result.baseline_gflops : 0;
  return result;
}

}  // namespace bk
