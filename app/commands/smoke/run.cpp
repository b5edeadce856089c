// SPDX-License-Identifier: MIT
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <exception>
#include <functional>
#include <mutex>
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

std::string hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
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
// Lines start with SmokeOptions::log_name: "bkctl", or in fleet mode the rank and host.
void progress_start(const std::string& who, const bk::Device& device, std::string_view check) {
  if (is_terminal(stderr))
    std::fprintf(stderr, "%s: %s: %.*s...\n", who.c_str(), device.name().c_str(), int(check.size()),
                 check.data());
}

void progress_done(const std::string& who, const SmokeCheckRecord& record) {
  if (is_terminal(stderr)) return;
  std::fprintf(stderr, "%s: smoke: %s %s %s (%.2f s)\n", who.c_str(), printable(record.device).c_str(),
               record.check.c_str(), status_text(record.outcome).c_str(), record.seconds);
  std::fflush(stderr);
}

// Level 3's progress lines, on stderr as they come, whether or not it is a terminal: a burn-in
// runs for minutes and must never be silent.
std::function<void(const std::string&)> progress_to_stderr(const std::string& who, const bk::Device& device) {
  return [who, name = printable(device.name())](const std::string& line) {
    std::fprintf(stderr, "%s: %s: %s\n", who.c_str(), name.c_str(), line.c_str());
    std::fflush(stderr);
  };
}

// One device's lane: its checks of some levels in order. After a timeout the device is not
// touched again, in this phase or a later one.
class DeviceLane {
 public:
  DeviceLane(bk::Device& device, const SmokeOptions& options) : device_(device) {
    settings_.memory_bytes = options.memory_bytes;
    settings_.memory_share = options.memory_share;
    settings_.duration_seconds = options.duration_seconds;
    settings_.max_drop = options.max_drop;
    settings_.floors = bk::floors_for(device, options.floors);
    settings_.progress = progress_to_stderr(options.log_name, device);
    timeout_ = options.timeout_seconds;
    who_ = options.log_name;
  }

  bk::Device& device() const { return device_; }
  std::vector<SmokeCheckRecord>& records() { return records_; }

  // `memory_sharers`: the devices that fill the same memory as this one meanwhile, itself included.
  void run(int min_level, int max_level, size_t memory_sharers = 1) {
    settings_.memory_sharers = memory_sharers;
    for (const bk::SmokeCheck& check : bk::smoke_checks()) {
      if (check.level >= min_level && check.level <= max_level) run_check(check);
    }
  }

 private:
  void run_check(const bk::SmokeCheck& check) {
    SmokeCheckRecord record{device_.name(), std::string(check.name), check.level, {}, 0};
    if (!hung_in_.empty()) {
      record.outcome.status = bk::SmokeStatus::skipped;
      record.outcome.message = fmt::format("not run: {} did not finish the {} check and may still be hung",
                                           device_.name(), hung_in_);
      records_.push_back(std::move(record));
      return;
    }
    progress_start(who_, device_, check.name);
    // The burn-in runs for --duration by design, and fills and verifies --mem twice: the
    // watchdog allows the duration and another --timeout on top.
    const double budget = check.level == 3 ? 2 * timeout_ + settings_.duration_seconds : timeout_;
    bk::Device* target = &device_;
    auto run = check.run;
    bk::WatchedOutcome watched =
        bk::run_with_watchdog([run, target, settings = settings_] { return run(*target, settings); },
                              std::chrono::duration<double>(budget));
    if (watched.outcome.timed_out) hung_in_ = check.name;
    record.outcome = std::move(watched.outcome);
    record.seconds = watched.seconds;
    progress_done(who_, record);
    records_.push_back(std::move(record));
  }

  bk::Device& device_;
  bk::SmokeSettings settings_;
  double timeout_ = 60;
  std::string who_;
  std::string hung_in_;
  std::vector<SmokeCheckRecord> records_;
};

// A device with compute of its own (a GPU, an accelerator) can be checked while others are: its
// numbers do not depend on theirs. Devices that run on the host's cores (the CPU, lavapipe,
// integrated GPUs sharing its memory) are checked one after another, after those, so that no
// two of them share the cores and skew each other's speed.
bool has_own_compute(const bk::Device& device) {
  return device.type() == bk::DeviceType::gpu || device.type() == bk::DeviceType::accel;
}

// Runs work(lane) for the chosen lanes side by side, each on a thread; an exception one throws
// is rethrown here, in the caller's thread, as a serial run would.
void run_side_by_side(std::vector<DeviceLane>& lanes, const std::function<bool(const DeviceLane&)>& chosen,
                      const std::function<void(DeviceLane&)>& work) {
  std::vector<std::exception_ptr> failed(lanes.size());
  {
    std::vector<std::jthread> threads;
    for (size_t i = 0; i < lanes.size(); ++i) {
      if (!chosen(lanes[i])) continue;
      threads.emplace_back([&, i] {
        try {
          work(lanes[i]);
        } catch (...) {
          failed[i] = std::current_exception();
        }
      });
    }
  }  // the jthreads join here
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
}

// Every device's checks, in the devices' order (see run_smoke for what runs side by side).
std::vector<std::vector<SmokeCheckRecord>> run_devices(const std::vector<bk::Device*>& devices,
                                                       const SmokeOptions& options) {
  const size_t host_memory_devices = static_cast<size_t>(std::count_if(
      devices.begin(), devices.end(), [](const bk::Device* d) { return !has_own_compute(*d); }));
  std::vector<DeviceLane> lanes;
  lanes.reserve(devices.size());
  for (bk::Device* device : devices) lanes.emplace_back(*device, options);
  const int first_levels = std::min(options.level, 2);
  run_side_by_side(
      lanes, [](const DeviceLane& lane) { return has_own_compute(lane.device()); },
      [&](DeviceLane& lane) { lane.run(1, first_levels); });
  for (DeviceLane& lane : lanes) {
    if (!has_own_compute(lane.device())) lane.run(1, first_levels);
  }
  if (options.level >= 3) {
    run_side_by_side(
        lanes, [](const DeviceLane&) { return true; },
        [&](DeviceLane& lane) { lane.run(3, 3, has_own_compute(lane.device()) ? 1 : host_memory_devices); });
  }
  std::vector<std::vector<SmokeCheckRecord>> records;
  records.reserve(lanes.size());
  for (DeviceLane& lane : lanes) records.push_back(std::move(lane.records()));
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
  report.host = hostname();
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
