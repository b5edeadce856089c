// SPDX-License-Identifier: MIT
#pragma once
// The checks of `bkctl smoke`: what each one does to a device, through the lib/core interfaces
// only, so that every device kind (and the simulated ones) runs the same checks.
//
//   level 1  enumerate   name, description, memory total > 0 and free <= total
//            memory      allocate SmokeSettings::memory_bytes, write and verify the walking-ones,
//                        address-in-address and random patterns (probe/mem_pattern.h)
//            roundtrip   host -> device -> host through a Backend stream (set/get_tensor_async)
//            compute     an add on a stream, synchronized, checked (a device that runs no add fails)
//            events      compute on a stream, record an event, wait on it, check the result
//   level 2  conformance a few ops (mul_mat f32 and f16, add, rms_norm, soft_max, silu) against a
//                        float64 reference, by normalised mean squared error
//            matmul      a timed f32 matmul, compared with a floor when one is given
//   level 3  sustained   the burn-in (smoke_burnin.cpp): memory filled with a pattern and a
//                        matmul sized to keep the device busy, for duration_seconds, every
//                        result checked (probe/checked_gemm.h), a timeline of throughput and
//                        telemetry each second, the fill verified again at the end
//
// A check returns its verdict (pass, fail, skipped with a reason); a bk::Error or other
// exception it throws is the caller's "error" (see smoke_watchdog.h). Checks block the calling
// thread, and may never return on a hung device: run them under the watchdog.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bk/device.h"
#include "probe/mem_pattern.h"
#include "probe/stats.h"

namespace bk {

// not_applicable: the device cannot run the check by design (no events, no f32 mul_mat); skipped:
// it could have run but did not (too little free memory, a hung earlier check).
enum class SmokeStatus { pass, fail, skipped, error, not_applicable };
// "pass", "fail", "skipped", "error", "n/a"
std::string_view smoke_status_name(SmokeStatus status) noexcept;
// Every status, in report order.
inline constexpr SmokeStatus kSmokeStatuses[] = {SmokeStatus::pass, SmokeStatus::fail, SmokeStatus::skipped,
                                                 SmokeStatus::error, SmokeStatus::not_applicable};

struct SmokeMetric {
  std::string name;  // "write_gbps", "median_gflops", ...
  double value = 0;
};

// One window (about a second) of a burn-in.
struct SmokeSample {
  double t = 0;       // seconds since the burn-in's matmuls began, at the window's end
  size_t runs = 0;    // matmuls that ended in the window
  double gflops = 0;  // their floating-point operations over their seconds; 0 without runs
  size_t wrong = 0;   // of them, results that failed the checks
  std::vector<TelemetryReading> telemetry;  // the device's readings at the window's end
  // This process's CPU seconds over the window's seconds: when it falls with the throughput on a
  // device that computes on the host, other load took the cores (not throttling).
  double cores_busy = 0;
};

struct SmokeOutcome {
  SmokeStatus status = SmokeStatus::pass;
  std::string message;  // why it failed, was skipped or is n/a, or a short note on a pass
  std::vector<SmokeMetric> metrics;
  std::vector<SmokeSample> timeline;  // the burn-in's; empty for the other checks
  bool timed_out = false;             // set by the watchdog: status is then error
  bool out_of_memory = false;         // set by the watchdog: an allocation failed, status is then error
};

// Floors for one device from the --expect file (probe/smoke_policy.h); unset: nothing compared.
struct SmokeFloors {
  std::optional<double> matmul_f32_gflops;
  std::optional<double> sustained_f32_gflops;
  std::optional<double> sustained_max_cv;
};

struct SmokeSettings {
  size_t memory_bytes = size_t{256} << 20;  // the memory checks' bytes, unless memory_share is set
  std::optional<double> memory_share;       // (0, 1]: that share of the device's free memory
  size_t memory_sharers = 1;                // devices filling the same (host) memory at once: each takes 1/N
  double duration_seconds = 60;             // level 3
  double max_drop = 0.10;                   // level 3: the largest throughput drop below the first minute's
  SmokeFloors floors;
  // Level 3's progress, a line every few seconds ("sustained 10/60 s: ..."); may be empty.
  std::function<void(const std::string&)> progress;
};

// The bytes the memory checks use on this device now: memory_bytes, or the share of its free
// memory divided among the sharers.
size_t memory_to_use(const Device& device, const SmokeSettings& settings);

struct SmokeCheck {
  std::string_view name;
  int level = 1;
  std::function<SmokeOutcome(Device&, const SmokeSettings&)> run;
};

// Every check, in the order they run, level 1 first.
const std::vector<SmokeCheck>& smoke_checks();

// The level-2 and 3 ones (smoke_compute.cpp).
SmokeOutcome smoke_conformance(Device& device, const SmokeSettings& settings);
SmokeOutcome smoke_matmul(Device& device, const SmokeSettings& settings);
// "random: 3 of 1024 words read back wrong; first at byte offset ...": a failed pattern check.
std::string mismatch_text(PatternKind kind, const VerifyResult& result, size_t bytes);

// median_gflops, min_gflops, max_gflops, cv and samples, as the matmul checks report them.
void add_throughput_metrics(SmokeOutcome& outcome, const SampleStats& gflops);

// smoke_burnin.cpp
SmokeOutcome smoke_sustained(Device& device, const SmokeSettings& settings);

}  // namespace bk
