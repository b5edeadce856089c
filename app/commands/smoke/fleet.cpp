// SPDX-License-Identifier: MIT
// Fleet mode's merge and outputs (fleet.h).
#include "commands/smoke/fleet.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "bk/strings.h"
#include "bk/units.h"
#include "bk/version.h"
#include "exit_codes.h"
#include "output/table.h"
#include "output/term.h"
#include "output/wrap.h"

namespace bkctl {
namespace {

constexpr std::string_view kFleetSchema = "bk.fleet/v1";

std::string host_of(const FleetNode& node) { return node.report ? node.report->host : "?"; }

std::vector<bk::FleetMeasure> measures_of(const std::vector<FleetNode>& nodes) {
  std::vector<bk::FleetMeasure> out;
  for (const FleetNode& node : nodes) {
    if (!node.report) continue;
    for (const SmokeCheckRecord& c : node.report->checks) {
      if (c.outcome.status != bk::SmokeStatus::pass || (c.check != "matmul" && c.check != "sustained"))
        continue;
      const auto device = std::find_if(node.report->devices.begin(), node.report->devices.end(),
                                       [&](const SmokeDeviceInfo& d) { return d.name == c.device; });
      for (const bk::SmokeMetric& m : c.outcome.metrics) {
        if (m.name == "median_gflops" && device != node.report->devices.end())
          out.push_back({node.rank, node.report->host, c.device, device->description, c.check, m.value});
      }
    }
  }
  return out;
}

// What the interconnect check found wrong, against the floors; empty when nothing.
std::vector<std::string> interconnect_problems(const SmokeOptions& options, const InterconnectResult& r) {
  std::vector<std::string> problems;
  if (!r.error.empty()) problems.push_back("interconnect: " + r.error);
  const bk::InterconnectFloors& floors = options.interconnect_floors;
  if (floors.ring_gbps && r.ring_gbps < *floors.ring_gbps) {
    problems.push_back(fmt::format("interconnect: ring {:.3g} GB/s is below the floor {:.3g}", r.ring_gbps,
                                   *floors.ring_gbps));
  }
  if (floors.allreduce_busbw_gbps && r.allreduce_busbw_gbps < *floors.allreduce_busbw_gbps) {
    problems.push_back(
        fmt::format("interconnect: allreduce bus bandwidth {:.3g} GB/s is below the floor {:.3g}",
                    r.allreduce_busbw_gbps, *floors.allreduce_busbw_gbps));
  }
  return problems;
}

std::string outlier_text(const bk::FleetOutlier& o) {
  return fmt::format("{} {}: {:.4g} GFLOP/s, {:.0f}% below the fleet median {:.4g} of {} {}",
                     o.measure.device, o.measure.test, o.measure.gflops, 100 * o.below, o.fleet_median,
                     o.group_size, o.measure.description);
}

// The outliers found on one rank, in the fleet's order.
std::vector<const bk::FleetOutlier*> outliers_of(const std::vector<bk::FleetOutlier>& outliers, int rank) {
  std::vector<const bk::FleetOutlier*> out;
  for (const bk::FleetOutlier& o : outliers) {
    if (o.measure.rank == rank) out.push_back(&o);
  }
  return out;
}

// "rank 2", "ranks 1, 3"
std::string ranks_text(const std::vector<int>& ranks) {
  return fmt::format("{} {}", ranks.size() == 1 ? "rank" : "ranks", fmt::join(ranks, ", "));
}

void decide_fleet_verdict(const SmokeOptions& options, FleetReport& report) {
  int code = kExitOk;
  std::vector<int> failing, missing, outlying;
  for (const FleetNode& node : report.nodes) {
    const int node_code = node.report ? node.report->exit_code : kExitDeviceError;
    if (!node.report) {
      missing.push_back(node.rank);
    } else if (node_code != kExitOk) {
      failing.push_back(node.rank);
    }
    code = worse_exit_code(code, node_code);
  }
  for (const bk::FleetOutlier& o : report.outliers) {
    if (std::find(outlying.begin(), outlying.end(), o.measure.rank) == outlying.end())
      outlying.push_back(o.measure.rank);
    code = worse_exit_code(code, kExitCheckFailed);
  }
  std::vector<std::string> interconnect;
  if (report.interconnect) interconnect = interconnect_problems(options, *report.interconnect);
  if (!interconnect.empty()) code = worse_exit_code(code, kExitCheckFailed);
  report.exit_code = code;
  std::vector<std::string> parts;
  if (!failing.empty()) parts.push_back(ranks_text(failing) + " failed their checks");
  if (!missing.empty()) parts.push_back(ranks_text(missing) + " sent no report");
  if (!outlying.empty()) parts.push_back(ranks_text(outlying) + " measured below the fleet (--outlier)");
  parts.insert(parts.end(), interconnect.begin(), interconnect.end());
  report.verdict_line =
      code == kExitOk ? fmt::format("PASS: {}, every check passed", bk::count_of(report.nodes.size(), "rank"))
                      : fmt::format("FAIL: {}", fmt::join(parts, "; "));
}

}  // namespace

int worse_exit_code(int a, int b) {
  // From least to most severe.
  constexpr std::array<int, 5> kOrder = {kExitOk, kExitCheckFailed, kExitOutOfMemory, kExitDeviceError,
                                         kExitNotFound};
  const auto rank = [&](int code) {
    const auto at = std::find(kOrder.begin(), kOrder.end(), code);
    return at == kOrder.end() ? static_cast<int>(kOrder.size()) : static_cast<int>(at - kOrder.begin());
  };
  return rank(a) >= rank(b) ? a : b;
}

FleetReport merge_fleet(const SmokeOptions& options, const std::vector<std::optional<std::string>>& texts,
                        const std::optional<InterconnectResult>& interconnect) {
  FleetReport report;
  report.interconnect = interconnect;
  for (size_t rank = 0; rank < texts.size(); ++rank) {
    FleetNode node;
    node.rank = static_cast<int>(rank);
    if (!texts[rank]) {
      node.problem = "no report: the rank died, or hung outside the checks' watchdog (see --rank-timeout)";
    } else {
      try {
        node.document = ojson::parse(*texts[rank]);
        node.report = smoke_report_from_json(node.document);
      } catch (const std::exception& e) {
        node.report.reset();
        node.problem = fmt::format("its report is unreadable: {}", e.what());
      }
    }
    report.nodes.push_back(std::move(node));
  }
  if (!report.nodes.empty() && report.nodes.front().report) {
    report.timestamp = report.nodes.front().report->timestamp;
  }
  report.outliers = bk::find_outliers(measures_of(report.nodes), options.outlier);
  decide_fleet_verdict(options, report);
  return report;
}

namespace {

// One rank's row: its verdict, checks passed, and what failed (its checks, its outliers).
void add_node_row(Table& table, const FleetNode& node, const std::vector<bk::FleetOutlier>& outliers) {
  if (!node.report) {
    table.add_row({std::to_string(node.rank), "?", TableCell("MISSING", Tone::bad), "-", node.problem});
    return;
  }
  const SmokeReport& r = *node.report;
  size_t passed = 0;
  std::vector<std::string> bad;
  for (const SmokeCheckRecord& c : r.checks) {
    passed += c.outcome.status == bk::SmokeStatus::pass;
    if (c.outcome.status == bk::SmokeStatus::fail || c.outcome.status == bk::SmokeStatus::error)
      bad.push_back(fmt::format("{} {}: {}", c.device, c.check, status_text(c.outcome)));
  }
  const std::vector<const bk::FleetOutlier*> own = outliers_of(outliers, node.rank);
  for (const bk::FleetOutlier* o : own) bad.push_back("outlier: " + outlier_text(*o));
  const bool ok = r.exit_code == kExitOk && own.empty();
  table.add_row({std::to_string(node.rank), r.host,
                 TableCell(ok ? "PASS" : "FAIL", ok ? Tone::good : Tone::bad),
                 fmt::format("{}/{}", passed, r.checks.size()),
                 bad.empty() ? r.verdict_line : fmt::format("{}", fmt::join(bad, "; "))});
}

}  // namespace

std::string fleet_human(const SmokeOptions& options, const FleetReport& report) {
  const TermStyle style = term_style_for(stdout);
  std::string out =
      fmt::format("bkctl smoke: fleet of {} ranks, level {}\n\n", report.nodes.size(), options.level);
  Table table({{"rank", Align::right}, {"host"}, {"verdict"}, {"checks"}, {"detail", Align::left, true}});
  for (const FleetNode& node : report.nodes) add_node_row(table, node, report.outliers);
  out += table.render(style);
  if (report.interconnect) {
    const InterconnectResult& i = *report.interconnect;
    out += "\n" +
           wrap_text(i.error.empty()
                         ? fmt::format("interconnect ({} per message): ring {:.3g} GB/s, {:.1f} us per hop; "
                                       "allreduce bus bandwidth {:.3g} GB/s",
                                       bk::format_bytes(i.bytes), i.ring_gbps, i.ring_latency_us,
                                       i.allreduce_busbw_gbps)
                         : "interconnect: " + i.error,
                     style.width) +
           "\n";
  }
  const std::string verdict = wrap_text(report.verdict_line, style.width);
  out += "\n" + style.paint(verdict, report.exit_code == 0 ? Tone::good : Tone::bad) + "\n";
  return out;
}

ojson fleet_json(const SmokeOptions& options, const FleetReport& report) {
  ojson doc = json_document(kFleetSchema);
  doc["bkctl_version"] = bk::kVersion;
  doc["timestamp"] = report.timestamp.empty() ? ojson(nullptr) : ojson(report.timestamp + "Z");
  doc["ranks"] = report.nodes.size();
  doc["level"] = options.level;
  doc["outlier_threshold"] = options.outlier;
  ojson nodes = ojson::array();
  for (const FleetNode& node : report.nodes) {
    ojson missing = ojson::array();
    if (node.report) {
      for (const SmokeRequirementRecord& r : node.report->requirements) {
        if (r.verdict.device_missing)
          missing.push_back({{"requirement", r.text}, {"message", r.verdict.message}});
      }
    }
    nodes.push_back({{"rank", node.rank},
                     {"host", node.report ? ojson(node.report->host) : ojson(nullptr)},
                     {"reported", node.report.has_value()},
                     {"exit_code", node.report ? ojson(node.report->exit_code) : ojson(nullptr)},
                     {"problem", node.report ? ojson(nullptr) : ojson(node.problem)},
                     {"missing_devices", std::move(missing)},
                     {"report", node.report ? node.document : ojson(nullptr)}});
  }
  doc["nodes"] = std::move(nodes);
  ojson outliers = ojson::array();
  for (const bk::FleetOutlier& o : report.outliers) {
    outliers.push_back({{"rank", o.measure.rank},
                        {"host", o.measure.host},
                        {"device", o.measure.device},
                        {"description", o.measure.description},
                        {"test", o.measure.test},
                        {"gflops", o.measure.gflops},
                        {"fleet_median", o.fleet_median},
                        {"below", o.below},
                        {"group_size", o.group_size}});
  }
  doc["outliers"] = std::move(outliers);
  if (report.interconnect) {
    const InterconnectResult& i = *report.interconnect;
    doc["interconnect"] = {{"bytes", i.bytes},
                           {"ring_gbps", i.ring_gbps},
                           {"ring_latency_us", i.ring_latency_us},
                           {"allreduce_busbw_gbps", i.allreduce_busbw_gbps},
                           {"error", i.error.empty() ? ojson(nullptr) : ojson(i.error)},
                           {"problems", interconnect_problems(options, i)}};
  } else {
    doc["interconnect"] = nullptr;
  }
  doc["verdict"] = report.exit_code == 0 ? "pass" : "fail";
  doc["verdict_message"] = report.verdict_line;
  doc["exit_code"] = report.exit_code;
  return doc;
}

std::string fleet_junit(const FleetReport& report) {
  std::vector<JUnitSuite> suites;
  for (const FleetNode& node : report.nodes) {
    JUnitSuite suite{
        fmt::format("{} rank {}", host_of(node), node.rank), report.timestamp, host_of(node), {}, {}};
    suite.properties = {{"rank", std::to_string(node.rank)}};
    if (!node.report) {
      JUnitCase c{"bkctl.smoke.fleet", "report",     0, JUnitResult::error, node.problem,
                  "missing",           node.problem, {}};
      suite.cases.push_back(std::move(c));
    } else {
      for (JUnitSuite& device_suite : smoke_junit_suites(*node.report)) {
        for (JUnitCase& c : device_suite.cases) suite.cases.push_back(std::move(c));
      }
      for (const bk::FleetOutlier* o : outliers_of(report.outliers, node.rank)) {
        const std::string text = outlier_text(*o);
        suite.cases.push_back({"bkctl.smoke.fleet",
                               "outlier " + o->measure.device + " " + o->measure.test,
                               0,
                               JUnitResult::failure,
                               text,
                               "outlier",
                               text,
                               {}});
      }
    }
    suites.push_back(std::move(suite));
  }
  return render_junit("bkctl smoke fleet", suites);
}

}  // namespace bkctl
