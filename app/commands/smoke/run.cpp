// SPDX-License-Identifier: MIT
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <exception>
#include <mutex>
#include <stop_token>
#include <thread>

#include "bk/error.h"
#include "bk/registry.h"
#include "bk/strings.h"
#include "commands/smoke/cli.h"
#include "exit_codes.h"
#include "output/term.h"
#include "probe/smoke_watchdog.h"

namespace bkctl {
namespace {

using Clock = std::chrono::steady_clock;

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm);
  return text;
}

std::vector<bk::Device*> selected_devices(const SmokeOptions& options, const bk::Registry& registry) {
  if (options.devices.empty()) return registry.devices();
  std::vector<bk::Device*> out;
  for (const std::string& name : options.devices) {
    bk::Device& device = registry.device(name);  // Error(not_found) naming the devices there are
    if (std::find(out.begin(), out.end(), &device) == out.end()) out.push_back(&device);
  }
  return out;
}

SmokeDeviceInfo info_of(const bk::Device& device) {
  return {device.name(), device.description(), bk::device_type_name(device.type()), device.reg().name(),
          device.is_simulated()};
}

// What is seen while smoke runs: on a terminal, the check about to start; in a CI log (stderr not
// a terminal), every check as it finishes, so that a long run is never silent.
void progress_start(const bk::Device& device, std::string_view check) {
  if (is_terminal(stderr))
    std::fprintf(stderr, "bkctl: %s: %.*s...\n", device.name().c_str(), int(check.size()), check.data());
}

void progress_done(const SmokeCheckRecord& record) {
  if (is_terminal(stderr)) return;
  std::fprintf(stderr, "bkctl: smoke: %s %s %s (%.2f s)\n", printable(record.device).c_str(),
               record.check.c_str(), status_text(record.outcome).c_str(), record.seconds);
  std::fflush(stderr);
}

// On a terminal, a check that runs for a set time (level 3's sustained matmul) says every few
// seconds how long it has left, one line each (lanes may run side by side). Stops when destroyed.
std::jthread countdown(const bk::Device& device, std::string_view check, double seconds) {
  constexpr double kEvery = 5;
  if (check != "sustained" || !is_terminal(stderr) || seconds <= kEvery) return {};
  return std::jthread([name = printable(device.name()), seconds](std::stop_token stop) {
    std::mutex mutex;
    std::condition_variable_any wake;
    std::unique_lock lock(mutex);
    const Clock::time_point start = Clock::now();
    for (double at = kEvery; at < seconds; at += kEvery) {
      const auto when =
          start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(at));
      if (wake.wait_until(lock, stop, when, [] { return false; }) || stop.stop_requested()) return;
      std::fprintf(stderr, "bkctl: %s: sustained, %.0f s left\n", name.c_str(), seconds - at);
    }
  });
}

// Runs the device's checks in order; after a timeout the device is not touched again.
std::vector<SmokeCheckRecord> run_device(bk::Device& device, const SmokeOptions& options) {
  std::vector<SmokeCheckRecord> records;
  bk::SmokeSettings settings;
  settings.memory_bytes = options.memory_bytes;
  settings.duration_seconds = options.duration_seconds;
  settings.floors = bk::floors_for(device, options.floors);
  std::string hung_in;
  for (const bk::SmokeCheck& check : bk::smoke_checks()) {
    if (check.level > options.level) continue;
    SmokeCheckRecord record{device.name(), std::string(check.name), check.level, {}, 0};
    if (!hung_in.empty()) {
      record.outcome.status = bk::SmokeStatus::skipped;
      record.outcome.message = fmt::format("not run: {} did not finish the {} check and may still be hung",
                                           device.name(), hung_in);
      records.push_back(std::move(record));
      continue;
    }
    progress_start(device, check.name);
    // The sustained check runs for --duration by design; the watchdog allows that on top.
    const double budget =
        options.timeout_seconds + (check.name == "sustained" ? options.duration_seconds : 0);
    bk::Device* target = &device;
    auto run = check.run;
    std::jthread ticking = countdown(device, check.name, options.duration_seconds);
    bk::WatchedOutcome watched = bk::run_with_watchdog(
        [run, target, settings] { return run(*target, settings); }, std::chrono::duration<double>(budget));
    ticking = {};  // stopped and joined before the check's own line
    if (watched.outcome.timed_out) hung_in = check.name;
    record.outcome = std::move(watched.outcome);
    record.seconds = watched.seconds;
    progress_done(record);
    records.push_back(std::move(record));
  }
  return records;
}

// A device with compute of its own (a GPU, an accelerator) can be checked while others are: its
// numbers do not depend on theirs. Devices that run on the host's cores (the CPU, lavapipe,
// integrated GPUs sharing its memory) are checked one after another, after those, so that no
// two of them share the cores and skew each other's speed.
bool has_own_compute(const bk::Device& device) {
  return device.type() == bk::DeviceType::gpu || device.type() == bk::DeviceType::accel;
}

// Every device's checks, in the devices' order; the independent devices concurrently.
std::vector<std::vector<SmokeCheckRecord>> run_devices(const std::vector<bk::Device*>& devices,
                                                       const SmokeOptions& options) {
  std::vector<std::vector<SmokeCheckRecord>> records(devices.size());
  std::vector<std::exception_ptr> failed(devices.size());
  {
    std::vector<std::jthread> lanes;
    for (size_t i = 0; i < devices.size(); ++i) {
      if (!has_own_compute(*devices[i])) continue;
      lanes.emplace_back([&, i] {
        try {
          records[i] = run_device(*devices[i], options);
        } catch (...) {  // rethrown below, in the caller's thread, as a serial run would
          failed[i] = std::current_exception();
        }
      });
    }
  }  // the jthreads join here
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!has_own_compute(*devices[i])) records[i] = run_device(*devices[i], options);
  }
  return records;
}

// Why a family's plugin did not load ("libbk-cuda.so: libcuda.so.1 not found"), when it did not.
std::string plugin_note(const bk::Registry& registry, const std::string& family) {
  for (const bk::PluginAttempt& attempt : registry.plugin_report()) {
    if (bk::iequals(attempt.name, family) && attempt.status != bk::PluginAttempt::Status::loaded) {
      return fmt::format("; the {} plugin {}: {}", attempt.name, bk::plugin_status_name(attempt.status),
                         attempt.reason);
    }
  }
  return {};
}

void evaluate_requirements(const SmokeOptions& options, const bk::Registry& registry, SmokeReport& report) {
  for (const bk::SmokeRequirement& r : options.requirements) {
    bk::SmokeVerdict verdict = bk::evaluate_requirement(r, registry.devices(), registry.regs());
    if (verdict.found == 0) verdict.message += plugin_note(registry, r.subject);
    report.requirements.push_back({"require", r.text, std::move(verdict)});
  }
  for (const bk::SmokeMinMemory& m : options.min_memory) {
    report.requirements.push_back({"min_memory", m.text, bk::evaluate_min_memory(m, registry.devices())});
  }
}

bool fails_run(const SmokeOptions& options, bk::SmokeStatus status) {
  return std::find(options.fail_on.begin(), options.fail_on.end(), status) != options.fail_on.end();
}

}  // namespace

SmokeReport run_smoke(const SmokeOptions& options) {
  const Clock::time_point start = Clock::now();
  SmokeReport report;
  report.timestamp = utc_timestamp();
  // Loading the plugins enumerates drivers, which can hang too: it gets the watchdog as well.
  const bk::WatchedOutcome loaded = bk::run_with_watchdog(
      [] {
        bk::Registry::global();
        return bk::SmokeOutcome{};
      },
      std::chrono::duration<double>(options.timeout_seconds));
  if (loaded.outcome.status != bk::SmokeStatus::pass) {
    // Nothing else can run without the registry, but the reports still say what happened.
    bk::SmokeOutcome outcome = loaded.outcome;
    outcome.message = "finding the devices (loading the plugins): " + outcome.message;
    report.checks.push_back({"host", "enumerate", 1, outcome, loaded.seconds});
    report.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    // Nothing was checked: never a pass, whatever --fail-on says.
    report.exit_code = kExitDeviceError;
    report.verdict_line =
        fmt::format("FAIL: finding the devices {}", outcome.timed_out ? "timed out" : "failed");
    return report;
  }
  const bk::Registry& registry = bk::Registry::global();
  const std::vector<bk::Device*> devices = selected_devices(options, registry);
  evaluate_requirements(options, registry, report);
  for (bk::Device* device : devices) report.devices.push_back(info_of(*device));
  for (std::vector<SmokeCheckRecord>& checks : run_devices(devices, options)) {
    for (SmokeCheckRecord& record : checks) report.checks.push_back(std::move(record));
  }
  report.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  decide_verdict(options, report);
  return report;
}

void decide_verdict(const SmokeOptions& options, SmokeReport& report) {
  size_t missing = 0, unmet = 0, errors = 0, out_of_memory = 0, failing = 0;
  for (const SmokeRequirementRecord& r : report.requirements) {
    missing += r.verdict.device_missing;
    unmet += !r.verdict.met && !r.verdict.device_missing;
  }
  for (const SmokeCheckRecord& c : report.checks) {
    if (!fails_run(options, c.outcome.status)) continue;
    (c.outcome.status == bk::SmokeStatus::error ? errors : failing) += 1;
    out_of_memory += c.outcome.out_of_memory;
  }
  if (missing > 0) {
    report.exit_code = kExitNotFound;
  } else if (errors > 0) {
    // Only allocation failures: the device works but has too little memory for the checks.
    report.exit_code = out_of_memory == errors ? kExitOutOfMemory : kExitDeviceError;
  } else if (unmet + failing > 0) {
    report.exit_code = kExitCheckFailed;
  } else {
    report.exit_code = kExitOk;
  }
  std::vector<std::string> parts;
  if (missing > 0) parts.push_back(bk::count_of(missing, "required device") + " missing");
  if (unmet > 0) parts.push_back(bk::count_of(unmet, "requirement") + " not met");
  if (errors > 0) parts.push_back(bk::count_of(errors, "check") + " errored or timed out");
  if (failing > 0) parts.push_back(bk::count_of(failing, "check") + " failed (statuses in --fail-on)");
  report.verdict_line = report.exit_code == kExitOk
                            ? fmt::format("PASS: {} on {}{}", bk::count_of(report.checks.size(), "check"),
                                          bk::count_of(report.devices.size(), "device"),
                                          report.requirements.empty() ? "" : ", every requirement met")
                            : fmt::format("FAIL: {}", fmt::join(parts, ", "));
}

}  // namespace bkctl
