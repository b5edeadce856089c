// SPDX-License-Identifier: MIT
// `bkctl bench --json` (schema bk.bench/v1) and `--baseline`: the comparison with an earlier run.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cmath>

#include "bk/error.h"
#include "bk/version.h"
#include "commands/bench/cli.h"
#include "probe/bench_compare.h"
#include "probe/device_details.h"
#include "probe/host_info.h"
#include "probe/input_file.h"

namespace bkctl {
namespace {

constexpr const char* kSchema = "bk.bench/v1";

[[noreturn]] void bad_baseline(const std::string& path, const std::string& why) {
  throw bk::Error(bk::ErrorCode::invalid_argument, fmt::format("--baseline {}: {}", path, why));
}

ojson identity(const bk::Device& d) {
  return ojson{{"name", d.name()},
               {"description", d.description()},
               {"type", bk::device_type_name(d.type())},
               {"stable_id", string_or_null(d.stable_id())},
               {"simulated", d.is_simulated()}};
}

// The driver is kept apart from the identity: a driver update must not make a baseline "another
// device". Whatever the device describes under a key naming the driver.
ojson driver(const bk::Device& d) {
  const nlohmann::json described = bk::device_details(d);
  ojson out = ojson::object();
  for (auto it = described.begin(); it != described.end(); ++it) {
    if (it.key().find("driver") != std::string::npos) out[it.key()] = to_ordered(it.value());
  }
  return out.empty() ? ojson(nullptr) : out;
}

ojson result_json(const BenchResult& r) {
  const bool ok = r.status == BenchStatus::ok;
  const auto v = [ok](double x) { return ok ? ojson(x) : ojson(nullptr); };
  ojson j{{"id", r.test.id()},
          {"group", r.test.group},
          {"op", r.test.op},
          {"dtype", string_or_null(r.test.dtype)},
          {"size", r.test.size > 0 ? ojson(r.test.size) : ojson(nullptr)},
          {"graph", string_or_null(r.test.graph)},
          {"status", bench_status_name(r.status)},
          {"reason", string_or_null(r.reason)},
          {"unit", r.unit},
          {"higher_is_better", r.higher_is_better},
          {"median", v(r.stats.median)},
          {"min", v(r.stats.min)},
          {"max", v(r.stats.max)},
          {"cv", v(r.stats.cv)},
          {"samples", ok ? ojson(r.stats.count) : ojson(nullptr)},
          {"median_ci", ok ? ojson{{"low", r.stats.median_low},
                                   {"high", r.stats.median_high},
                                   {"spread", bk::median_spread(r.stats)},
                                   {"met", r.ci_met}}
                           : ojson(nullptr)},
          {"flops", r.flops > 0 ? ojson(r.flops) : ojson(nullptr)},
          {"bytes", r.bytes > 0 ? ojson(r.bytes) : ojson(nullptr)},
          {"fraction_of_peak", r.fraction ? ojson(*r.fraction) : ojson(nullptr)},
          {"peak", string_or_null(r.peak_name)},
          {"timer", r.timer}};
  if (!r.splits.empty()) {
    ojson splits = ojson::array();
    for (const SplitInfo& s : r.splits)
      splits.push_back({{"device", s.device},
                        {"nodes", s.nodes},
                        {"flops", s.flops},
                        {"copy_s", s.copy_s},
                        {"compute_s", s.compute_s}});
    j["splits"] = splits;
  }
  if (!r.memory.empty()) {
    ojson memory = ojson::array();
    for (const BenchResult::Memory& m : r.memory)
      memory.push_back({{"device", m.device}, {"bytes", m.bytes}, {"mapped_bytes", m.mapped}});
    j["memory"] = memory;
  }
  if (r.check_nmse) {
    j["check"] = {{"reference", "float64"},
                  {"nmse", std::isfinite(*r.check_nmse) ? ojson(*r.check_nmse) : ojson(nullptr)},
                  {"limit", r.check_limit.value_or(0)}};
  }
  return j;
}

const ojson* find_device(const ojson& doc, const bk::Device& d) {
  for (const ojson& dev : doc.at("devices")) {
    const ojson& id = dev.at("identity");
    if (id.value("name", "") == d.name() && id.value("description", "") == d.description()) return &dev;
  }
  return nullptr;
}

const ojson* find_test(const ojson& device, const std::string& id) {
  for (const ojson& t : device.at("tests")) {
    if (t.value("id", "") == id) return &t;
  }
  return nullptr;
}

// A baseline's numbers must be ones a run can produce: a median that is a positive finite rate,
// a whole number of samples n (at least 2) and a cv in [0, sqrt(n)] (no n positive samples
// spread more: a latency with a few long outliers does reach cv 3). Anything else (cv 1e308, a
// zero or negative median) cannot be compared, so it is refused.
bk::Measured baseline_measure(const ojson& test, const std::string& path) {
  const std::string id = test.value("id", "?");
  const ojson& median = test.at("median");
  const ojson& cv = test.at("cv");
  const ojson& samples = test.at("samples");
  const auto number = [](const ojson& v) { return v.is_number() ? v.get<double>() : std::nan(""); };
  const double m = number(median), c = number(cv);
  if (!(std::isfinite(m) && m > 1e-300)) {
    bad_baseline(path, fmt::format("test {} has median {}: not a measured value", id, median.dump()));
  }
  if (!samples.is_number_unsigned() || samples.get<size_t>() < 2) {
    bad_baseline(path, fmt::format("test {} has samples {}: a baseline needs a whole number of at least 2",
                                   id, samples.dump()));
  }
  const size_t n = samples.get<size_t>();
  if (!(c >= 0 && c <= std::sqrt(static_cast<double>(n)))) {
    bad_baseline(path, fmt::format("test {} has cv {}: outside [0, sqrt({} samples)], which no measured "
                                   "run gives; re-record the baseline",
                                   id, cv.dump(), n));
  }
  return {m, c, n};
}

}  // namespace

ojson bench_document(const BenchRun& run) {
  ojson doc = json_document(kSchema);
  doc["bkctl_version"] = bk::kVersion;
  const bk::HostInfo h = bk::host_info();
  doc["host"] = {{"cpu", string_or_null(h.cpu)},
                 {"logical_cpus", h.logical_cpus},
                 {"os", string_or_null(h.os)},
                 {"kernel", string_or_null(h.kernel)},
                 {"arch", string_or_null(h.arch)}};
  doc["invocation"] = {
      {"argv", run.args.argv},
      {"budget_s", run.timing.budget_s},
      {"warmup", run.timing.warmup},
      {"min_samples", run.timing.min_samples},
      {"ci_target", run.timing.ci_target},
      {"ci_overtime_s", run.timing.budget_s * run.timing.ci_overtime},
      {"threads", run.args.threads > 0 ? ojson(run.args.threads) : ojson(nullptr)},
      {"timer", "per test: device events where the device times them, else host clock after synchronize"}};
  ojson devices = ojson::array();
  for (const DeviceBench& b : run.devices) {
    ojson peaks = ojson::array();
    for (const Peak& p : b.peaks)
      peaks.push_back({{"name", p.name}, {"unit", p.unit}, {"value", p.value}, {"source", p.source}});
    ojson results = ojson::array();
    for (const BenchResult& r : b.results) results.push_back(result_json(r));
    devices.push_back({{"identity", identity(*b.device)},
                       {"driver", driver(*b.device)},
                       {"peaks", peaks},
                       {"tests", results}});
  }
  doc["devices"] = devices;
  return doc;
}

namespace {

BaselineReport compare_documents(const BenchRun& run, const std::string& path, double tolerance) {
  const ojson doc = ojson::parse(bk::read_input_file(path, "--baseline"), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) bad_baseline(path, "is not JSON");
  const std::string schema = doc.value("schema", "");
  if (schema != kSchema)
    bad_baseline(path, fmt::format("has schema '{}', this bkctl compares {} only", schema, kSchema));
  if (!doc.contains("devices") || !doc["devices"].is_array()) bad_baseline(path, "has no devices array");
  BaselineReport report;
  report.json = {{"file", path}, {"tolerance", tolerance}, {"compared", ojson::array()}};
  for (const DeviceBench& b : run.devices) {
    const ojson* base = find_device(doc, *b.device);
    if (base == nullptr) {
      std::vector<std::string> names;
      for (const ojson& dev : doc.at("devices"))
        names.push_back(dev.at("identity").value("name", "?") + " (" +
                        dev.at("identity").value("description", "?") + ")");
      bad_baseline(path, fmt::format("was recorded on {}, not on {} ({}); compare runs of the same device",
                                     fmt::join(names, ", "), b.device->name(), b.device->description()));
    }
    for (const BenchResult& r : b.results) {
      const ojson* t = find_test(*base, r.test.id());
      if (t == nullptr || t->value("status", "") != "ok") continue;
      const bk::Measured old = baseline_measure(*t, path);
      if (r.status == BenchStatus::error) {
        // A test that ran before and fails now is the worst regression there is.
        ++report.regressions;
        report.lines.push_back(fmt::format("{} {}: ok in the baseline, now an error: {}  REGRESSION",
                                           b.device->name(), r.test.id(), r.reason));
        report.json["compared"].push_back({{"device", b.device->name()},
                                           {"id", r.test.id()},
                                           {"baseline", old.median},
                                           {"current", nullptr},
                                           {"change", nullptr},
                                           {"allowed", nullptr},
                                           {"regression", true},
                                           {"error", r.reason}});
        continue;
      }
      if (r.status != BenchStatus::ok) continue;
      // Device time leaves out the submission that host time includes: not the same quantity.
      const std::string timer = t->value("timer", r.timer);
      if (timer != r.timer) {
        report.lines.push_back(fmt::format("{} {}: not compared: timed by {} now, by {} in the baseline",
                                           b.device->name(), r.test.id(), r.timer, timer));
        continue;
      }
      const bk::Measured now{r.stats.median, r.stats.cv, r.stats.count};
      const bk::Verdict v = bk::compare_to_baseline(old, now, tolerance, r.higher_is_better);
      report.regressions += v.regression ? 1 : 0;
      const std::string verdict = v.regression              ? "  REGRESSION"
                                  : !v.inconclusive.empty() ? "  not judged: " + v.inconclusive
                                                            : "";
      report.lines.push_back(fmt::format("{} {}: {:.4g} -> {:.4g} {} ({:+.1f}%, allowed -{:.1f}%){}",
                                         b.device->name(), r.test.id(), old.median, now.median, r.unit,
                                         100 * v.change, 100 * v.allowed, verdict));
      ojson compared = {{"device", b.device->name()}, {"id", r.test.id()},  {"baseline", old.median},
                        {"current", now.median},      {"change", v.change}, {"allowed", v.allowed},
                        {"regression", v.regression}};
      if (!v.inconclusive.empty()) compared["inconclusive"] = v.inconclusive;
      report.json["compared"].push_back(std::move(compared));
    }
  }
  report.json["regressions"] = report.regressions;
  return report;
}

}  // namespace

BaselineReport compare_with_baseline(const BenchRun& run, const std::string& path, double tolerance) {
  try {
    return compare_documents(run, path, tolerance);
  } catch (const nlohmann::json::exception& e) {
    bad_baseline(path, std::string("is not a valid bk.bench/v1 record: ") + e.what());
  }
}

}  // namespace bkctl
