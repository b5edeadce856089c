// SPDX-License-Identifier: MIT
#pragma once
// Fleet mode of `bkctl smoke`: under mpirun or srun (fleet/fleet_link.h) every rank checks its
// own node as a single run would, and rank 0 merges the ranks' bk.smoke/v2 reports into one:
// per host and rank, every check, the devices missing against --require on each host, bench
// results against the fleet median with the outliers named (--outlier), the interconnect, and
// ranks that sent no report (died, or hang outside the checks' watchdog). Schema bk.fleet/v1.

#include <optional>
#include <string>
#include <vector>

#include "commands/smoke/cli.h"
#include "fleet/fleet_link.h"
#include "probe/fleet_outliers.h"

namespace bkctl {

struct FleetNode {
  int rank = 0;
  std::optional<SmokeReport> report;  // nothing: the rank sent none in time, or an unreadable one
  ojson document;                     // its bk.smoke/v2 document as received, or null
  std::string problem;                // why there is no report
};

struct FleetReport {
  std::string timestamp;  // UTC, when rank 0 started
  std::vector<FleetNode> nodes;
  std::vector<bk::FleetOutlier> outliers;
  std::optional<InterconnectResult> interconnect;  // measured with two ranks or more
  int exit_code = 0;
  std::string verdict_line;
  double wall_seconds = 0;
};

// Rank 0's merge of the texts gather() returned (one per rank, rank 0's first).
FleetReport merge_fleet(const SmokeOptions& options, const std::vector<std::optional<std::string>>& texts,
                        const std::optional<InterconnectResult>& interconnect);

std::string fleet_human(const SmokeOptions& options, const FleetReport& report);
ojson fleet_json(const SmokeOptions& options, const FleetReport& report);
// One test suite per host and rank: its requirements, every check of every device, and the
// fleet's own checks of it (outliers; a missing report).
std::string fleet_junit(const FleetReport& report);

// The worse of two exit codes, by the precedence decide_verdict uses: 3, then 5, 4, 1, 0.
int worse_exit_code(int a, int b);

}  // namespace bkctl
