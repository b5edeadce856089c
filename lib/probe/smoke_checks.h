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
//   level 3  sustained   the matmul for SmokeSettings::duration_seconds, every result checked,
//                        throughput median/min/max and coefficient of variation recorded
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

struct SmokeOutcome {
  SmokeStatus status = SmokeStatus::pass;
  std::string message;  // why it failed, was skipped or is n/a, or a short note on a pass
  std::vector<SmokeMetric> metrics;
  bool timed_out = false;      // set by the watchdog: status is then error
  bool out_of_memory = false;  // set by the watchdog: an allocation failed, status is then error
};

// Floors for one device from the --expect file (probe/smoke_policy.h); unset: nothing compared.
struct SmokeFloors {
  std::optional<double> matmul_f32_gflops;
  std::optional<double> sustained_f32_gflops;
  std::optional<double> sustained_max_cv;
};

struct SmokeSettings {
  size_t memory_bytes = size_t{256} << 20;
  double duration_seconds = 60;  // level 3
  SmokeFloors floors;
};

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
SmokeOutcome smoke_sustained(Device& device, const SmokeSettings& settings);

}  // namespace bk
