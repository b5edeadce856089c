// SPDX-License-Identifier: MIT
#pragma once
// `bkctl smoke`: what a run was asked (SmokeOptions), what it found (SmokeReport), and the
// pieces that make one, in commands/smoke/: running the checks (run.cpp), the verdict and exit
// code, and the outputs (report.cpp: the human table, bk.smoke/v2 JSON, JUnit XML;
// prometheus.cpp: metrics for Prometheus).

#include <optional>
#include <string>
#include <vector>

#include "output/json_out.h"
#include "output/junit.h"
#include "probe/smoke_checks.h"
#include "probe/smoke_policy.h"

namespace bkctl {

struct SmokeOptions {
  int level = 1;
  std::vector<std::string> devices;  // empty: every device
  std::vector<bk::SmokeRequirement> requirements;
  std::vector<bk::SmokeMinMemory> min_memory;
  std::vector<bk::SmokeFloorEntry> floors;
  std::string floors_path;
  size_t memory_bytes = size_t{256} << 20;
  std::optional<double> memory_share;  // --mem 90%: a share of each device's free memory instead
  double timeout_seconds = 60;
  double duration_seconds = 60;
  double max_drop = 0.10;  // level 3: --max-drop
  // Fleet mode (commands/smoke/fleet.h):
  double outlier = 0.15;               // a bench result this far below the fleet median fails
  std::optional<double> rank_timeout;  // rank 0 waits this long for the others; default 2x timeout
  size_t interconnect_bytes = size_t{64} << 20;  // --interconnect; 0 skips the check
  bk::InterconnectFloors interconnect_floors;  // from --expect
  std::string log_name = "bkctl";              // what progress lines on stderr start with
  std::vector<bk::SmokeStatus> fail_on{bk::SmokeStatus::fail, bk::SmokeStatus::error};
};

struct SmokeDeviceInfo {
  std::string name;
  std::string description;
  std::string type;
  std::string family;
  bool simulated = false;
};

struct SmokeCheckRecord {
  std::string device;
  std::string check;
  int level = 1;
  bk::SmokeOutcome outcome;
  double seconds = 0;
};

struct SmokeRequirementRecord {
  std::string kind;  // "require" or "min_memory"
  std::string text;
  bk::SmokeVerdict verdict;
};

struct SmokeReport {
  std::string host;  // the machine's hostname
  std::vector<SmokeDeviceInfo> devices;
  std::vector<SmokeRequirementRecord> requirements;
  std::vector<SmokeCheckRecord> checks;
  std::string timestamp;  // UTC, ISO 8601, when the run started
  double wall_seconds = 0;
  int exit_code = 0;
  std::string verdict_line;  // "pass: ..." / "fail: ..."
};

// Runs every check of the requested levels on every selected device, under the watchdog, and
// evaluates the requirements. Levels 1 and 2 run devices with compute of their own (GPUs)
// side by side and those on the host's cores one after another, so that their measurements
// do not skew each other; level 3, the burn-in, then runs on every device at once, to load
// the whole node as production does (a share given with --mem is split among the devices that
// fill host memory). Fills in the exit code and verdict. When finding the devices fails or times
// out, the report holds that one error (device "host", check "enumerate") and nothing else, and
// exits 5 whatever --fail-on says. Throws bk::Error(not_found) for a --device that does not exist.
SmokeReport run_smoke(const SmokeOptions& options);

// The exit code (exit_codes.h) and a one-line verdict for a finished report:
// 3 a required device is missing, else 5 a check in --fail-on errored or timed out, else 1 a
// requirement is not met or a check in --fail-on failed or was skipped, else 0.
void decide_verdict(const SmokeOptions& options, SmokeReport& report);

std::string smoke_human(const SmokeOptions& options, const SmokeReport& report);
ojson smoke_json(const SmokeOptions& options, const SmokeReport& report);
std::string smoke_junit(const SmokeReport& report);
// Its suites: one per device (and "requirements", and "host" when finding the devices failed).
std::vector<JUnitSuite> smoke_junit_suites(const SmokeReport& report);
// The report a bk.smoke/v2 document holds (what fleet mode receives from the other ranks); the
// timelines are not read back. Throws nlohmann's exceptions or bk::Error on a malformed one.
SmokeReport smoke_report_from_json(const ojson& document);
// prometheus.cpp: Prometheus's text format, for node_exporter's textfile collector.
std::string smoke_prometheus(const SmokeReport& report);
// "PASS", "FAIL", "SKIPPED", "ERROR".
std::string to_upper_status(bk::SmokeStatus status);
// "TIMEOUT" for a timed-out check, else to_upper_status: what the table and progress lines say.
std::string status_text(const bk::SmokeOutcome& outcome);

}  // namespace bkctl
