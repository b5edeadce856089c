// SPDX-License-Identifier: MIT
// The outputs of `bkctl smoke`: the human table and verdict, bk.smoke/v2 JSON and JUnit XML.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "bk/error.h"
#include "bk/strings.h"
#include "bk/version.h"
#include "commands/smoke/cli.h"
#include "output/junit.h"
#include "output/table.h"
#include "output/term.h"
#include "output/wrap.h"

namespace bkctl {
namespace {

constexpr std::string_view kSmokeSchema = "bk.smoke/v2";

Tone tone_of(bk::SmokeStatus status) {
  switch (status) {
    case bk::SmokeStatus::pass:
      return Tone::good;
    case bk::SmokeStatus::skipped:
    case bk::SmokeStatus::not_applicable:
      return Tone::dim;
    default:
      return Tone::bad;
  }
}

// Counts (bytes, words, samples) in full: "bytes=25276203008", never "2.52762e+10".
std::string metric_value(double value) {
  if (value == std::trunc(value) && std::fabs(value) < 1e15)
    return fmt::format("{}", static_cast<int64_t>(value));
  return fmt::format("{:.6g}", value);
}

std::string metrics_text(const bk::SmokeOutcome& outcome) {
  std::vector<std::string> parts;
  for (const bk::SmokeMetric& m : outcome.metrics)
    parts.push_back(fmt::format("{}={}", m.name, metric_value(m.value)));
  return fmt::format("{}", fmt::join(parts, " "));
}

JUnitCase junit_case(const SmokeCheckRecord& c) {
  JUnitCase out;
  out.classname = "bkctl.smoke." + c.device;
  out.name = c.check;
  out.seconds = c.seconds;
  out.message = c.outcome.message;
  out.details = c.outcome.message;
  out.system_out = metrics_text(c.outcome);
  switch (c.outcome.status) {
    case bk::SmokeStatus::pass:
      out.result = JUnitResult::passed;
      break;
    case bk::SmokeStatus::fail:
      out.result = JUnitResult::failure, out.type = "fail";
      break;
    case bk::SmokeStatus::skipped:
      out.result = JUnitResult::skipped, out.type = "skipped";
      break;
    case bk::SmokeStatus::not_applicable:
      // JUnit has no "does not apply"; its type attribute keeps it apart from a real skip.
      out.result = JUnitResult::skipped, out.type = "n/a";
      break;
    case bk::SmokeStatus::error:
      out.result = JUnitResult::error;
      out.type = c.outcome.timed_out ? "timeout" : "error";
      break;
  }
  return out;
}

ojson metrics_json(const bk::SmokeOutcome& outcome) {
  ojson out = ojson::object();
  for (const bk::SmokeMetric& m : outcome.metrics) {
    if (std::isfinite(m.value)) out[m.name] = m.value;
  }
  return out;
}

ojson timeline_json(const std::vector<bk::SmokeSample>& timeline) {
  ojson out = ojson::array();
  for (const bk::SmokeSample& s : timeline) {
    ojson telemetry = ojson::object();
    for (const bk::TelemetryReading& r : s.telemetry) {
      if (std::isfinite(r.value)) telemetry[r.name] = r.value;
    }
    out.push_back({{"t", s.t},
                   {"runs", s.runs},
                   {"gflops", s.gflops},
                   {"wrong", s.wrong},
                   {"cores_busy", s.cores_busy},
                   {"telemetry", telemetry}});
  }
  return out;
}

}  // namespace

std::string status_text(const bk::SmokeOutcome& outcome) {
  return outcome.timed_out ? "TIMEOUT" : to_upper_status(outcome.status);
}

std::string to_upper_status(bk::SmokeStatus status) {
  std::string text(bk::smoke_status_name(status));
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string smoke_human(const SmokeOptions& options, const SmokeReport& report) {
  const TermStyle style = term_style_for(stdout);
  std::string out = fmt::format("bkctl smoke: level {}, {}, timeout {:g} s per check\n\n", options.level,
                                bk::count_of(report.devices.size(), "device"), options.timeout_seconds);
  if (!report.requirements.empty()) {
    for (const SmokeRequirementRecord& r : report.requirements) {
      out += fmt::format("{} {}: {}\n", r.kind == "require" ? "--require" : "--min-memory", r.text,
                         style.paint(r.verdict.met              ? "met"
                                     : r.verdict.device_missing ? "MISSING"
                                                                : "NOT MET",
                                     r.verdict.met ? Tone::good : Tone::bad));
      out += wrap_text("  " + printable(r.verdict.message) + "\n", style.width);
    }
    out += "\n";
  }
  Table table({{"device"}, {"check"}, {"status"}, {"seconds", Align::right}, {"detail", Align::left, true}});
  for (const SmokeCheckRecord& c : report.checks) {
    table.add_row({c.device, c.check, TableCell(status_text(c.outcome), tone_of(c.outcome.status)),
                   fmt::format("{:.3f}", c.seconds), c.outcome.message});
  }
  out += table.render(style);
  const std::string verdict =
      wrap_text(fmt::format("{} ({:.2f} s)", report.verdict_line, report.wall_seconds), style.width);
  out += "\n" + style.paint(verdict, report.exit_code == 0 ? Tone::good : Tone::bad) + "\n";
  return out;
}

ojson smoke_json(const SmokeOptions& options, const SmokeReport& report) {
  ojson doc = json_document(kSmokeSchema);
  doc["bkctl_version"] = bk::kVersion;
  doc["timestamp"] = report.timestamp + "Z";
  doc["host"] = {{"name", report.host}};
  doc["level"] = options.level;
  doc["timeout_seconds"] = options.timeout_seconds;
  doc["memory_bytes"] = options.memory_bytes;
  doc["memory_share"] = options.memory_share ? ojson(*options.memory_share) : ojson(nullptr);
  doc["duration_seconds"] = options.level >= 3 ? ojson(options.duration_seconds) : ojson(nullptr);
  doc["max_drop"] = options.level >= 3 ? ojson(options.max_drop) : ojson(nullptr);
  ojson fail_on = ojson::array();
  for (bk::SmokeStatus s : options.fail_on) fail_on.push_back(bk::smoke_status_name(s));
  doc["fail_on"] = std::move(fail_on);
  doc["floors_file"] = string_or_null(options.floors_path);
  ojson requirements = ojson::array();
  for (const SmokeRequirementRecord& r : report.requirements) {
    requirements.push_back({{"kind", r.kind},
                            {"text", r.text},
                            {"met", r.verdict.met},
                            {"device_missing", r.verdict.device_missing},
                            {"found", r.verdict.found},
                            {"message", r.verdict.message}});
  }
  doc["requirements"] = std::move(requirements);
  ojson devices = ojson::array();
  for (const SmokeDeviceInfo& d : report.devices) {
    devices.push_back({{"name", d.name},
                       {"description", d.description},
                       {"type", d.type},
                       {"family", d.family},
                       {"simulated", d.simulated}});
  }
  doc["devices"] = std::move(devices);
  ojson checks = ojson::array();
  ojson counts = ojson::object();
  for (bk::SmokeStatus s : bk::kSmokeStatuses) counts[std::string(bk::smoke_status_name(s))] = 0;
  for (const SmokeCheckRecord& c : report.checks) {
    const std::string status(bk::smoke_status_name(c.outcome.status));
    counts[status] = counts[status].get<int>() + 1;
    ojson check = {{"device", c.device},
                   {"check", c.check},
                   {"level", c.level},
                   {"status", status},
                   {"timed_out", c.outcome.timed_out},
                   {"message", string_or_null(c.outcome.message)},
                   {"seconds", c.seconds},
                   {"metrics", metrics_json(c.outcome)}};
    if (!c.outcome.timeline.empty()) check["timeline"] = timeline_json(c.outcome.timeline);
    checks.push_back(std::move(check));
  }
  doc["checks"] = std::move(checks);
  doc["counts"] = std::move(counts);
  doc["verdict"] = report.exit_code == 0 ? "pass" : "fail";
  doc["verdict_message"] = report.verdict_line;
  doc["exit_code"] = report.exit_code;
  doc["wall_seconds"] = report.wall_seconds;
  return doc;
}

std::string smoke_junit(const SmokeReport& report) {
  return render_junit("bkctl smoke", smoke_junit_suites(report));
}

std::vector<JUnitSuite> smoke_junit_suites(const SmokeReport& report) {
  const std::string& host = report.host;
  std::vector<JUnitSuite> suites;
  if (!report.requirements.empty()) {
    JUnitSuite suite{"requirements", report.timestamp, host, {}, {}};
    for (const SmokeRequirementRecord& r : report.requirements) {
      JUnitCase c;
      c.classname = "bkctl.smoke.requirements";
      c.name = (r.kind == "require" ? "require " : "min-memory ") + r.text;
      c.system_out = r.verdict.message;
      if (!r.verdict.met) {
        c.result = JUnitResult::failure;
        c.type = r.verdict.device_missing ? "device_missing" : "requirement";
        c.message = c.details = r.verdict.message;
      }
      suite.cases.push_back(std::move(c));
    }
    suites.push_back(std::move(suite));
  }
  for (const SmokeDeviceInfo& d : report.devices) {
    JUnitSuite suite{d.name, report.timestamp, host, {}, {}};
    suite.properties = {{"description", d.description},
                        {"type", d.type},
                        {"family", d.family},
                        {"simulated", d.simulated ? "true" : "false"}};
    for (const SmokeCheckRecord& c : report.checks) {
      if (c.device == d.name) suite.cases.push_back(junit_case(c));
    }
    suites.push_back(std::move(suite));
  }
  // Checks of no device: finding the devices failed or timed out (device "host").
  JUnitSuite host_suite{"host", report.timestamp, host, {}, {}};
  for (const SmokeCheckRecord& c : report.checks) {
    const bool of_a_device = std::any_of(report.devices.begin(), report.devices.end(),
                                         [&](const SmokeDeviceInfo& d) { return d.name == c.device; });
    if (!of_a_device) host_suite.cases.push_back(junit_case(c));
  }
  if (!host_suite.cases.empty()) suites.push_back(std::move(host_suite));
  return suites;
}

namespace {

bk::SmokeStatus status_named(const std::string& name) {
  for (bk::SmokeStatus s : bk::kSmokeStatuses) {
    if (bk::smoke_status_name(s) == name) return s;
  }
  throw bk::Error(bk::ErrorCode::invalid_argument, "unknown smoke status '" + name + "'");
}

}  // namespace

SmokeReport smoke_report_from_json(const ojson& doc) {
  SmokeReport report;
  report.host = doc.at("host").at("name").get<std::string>();
  std::string timestamp = doc.at("timestamp").get<std::string>();
  if (!timestamp.empty() && timestamp.back() == 'Z') timestamp.pop_back();
  report.timestamp = timestamp;
  for (const ojson& d : doc.at("devices")) {
    report.devices.push_back({d.at("name").get<std::string>(), d.at("description").get<std::string>(),
                              d.at("type").get<std::string>(), d.at("family").get<std::string>(),
                              d.at("simulated").get<bool>()});
  }
  for (const ojson& r : doc.at("requirements")) {
    bk::SmokeVerdict verdict;
    verdict.met = r.at("met").get<bool>();
    verdict.device_missing = r.at("device_missing").get<bool>();
    verdict.found = r.at("found").get<size_t>();
    verdict.message = r.at("message").get<std::string>();
    report.requirements.push_back(
        {r.at("kind").get<std::string>(), r.at("text").get<std::string>(), verdict});
  }
  for (const ojson& c : doc.at("checks")) {
    SmokeCheckRecord record;
    record.device = c.at("device").get<std::string>();
    record.check = c.at("check").get<std::string>();
    record.level = c.at("level").get<int>();
    record.seconds = c.at("seconds").get<double>();
    record.outcome.status = status_named(c.at("status").get<std::string>());
    record.outcome.timed_out = c.at("timed_out").get<bool>();
    if (c.at("message").is_string()) record.outcome.message = c.at("message").get<std::string>();
    for (const auto& [name, value] : c.at("metrics").items())
      record.outcome.metrics.push_back({name, value.get<double>()});
    report.checks.push_back(std::move(record));
  }
  report.wall_seconds = doc.at("wall_seconds").get<double>();
  report.exit_code = doc.at("exit_code").get<int>();
  report.verdict_line = doc.at("verdict_message").get<std::string>();
  return report;
}

}  // namespace bkctl
