// SPDX-License-Identifier: MIT
// `bkctl smoke --prom FILE`: the report in Prometheus's text exposition format (version 0.0.4),
// for node_exporter's textfile collector. Every family is a gauge with HELP and TYPE lines, its
// samples together; label values are escaped as the format says.
#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <string_view>
#include <utility>
#include <vector>

#include "commands/smoke/cli.h"

namespace bkctl {
namespace {

// A label value with backslash, double quote and newline escaped.
std::string escaped(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// A sample value as the format spells it: the shortest decimal that reads back the same, or
// NaN, +Inf, -Inf.
std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

// Samples of one family, written under its HELP and TYPE lines.
class Family {
 public:
  Family(std::string name, std::string help) : name_(std::move(name)), help_(std::move(help)) {}
  void add(const std::vector<std::pair<std::string, std::string>>& labels, double value) {
    std::string text;
    for (const auto& [key, val] : labels)
      text += fmt::format("{}{}=\"{}\"", text.empty() ? "" : ",", key, escaped(val));
    samples_ += fmt::format("{}{{{}}} {}\n", name_, text, number(value));
  }
  void add(double value) { samples_ += fmt::format("{} {}\n", name_, number(value)); }
  std::string render() const {
    if (samples_.empty()) return {};
    return fmt::format("# HELP {} {}\n# TYPE {} gauge\n{}", name_, help_, name_, samples_);
  }

 private:
  std::string name_, help_, samples_;
};

const bk::SmokeMetric* metric(const SmokeCheckRecord& c, std::string_view name) {
  for (const bk::SmokeMetric& m : c.outcome.metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// Where each telemetry reading goes: its family and the labels that tell it from its siblings.
struct TelemetryMetric {
  std::string_view reading;
  Family* family;
  std::vector<std::pair<std::string, std::string>> labels;
};

// The device's last burn-in readings (level 3), as gauges.
void add_telemetry(const SmokeCheckRecord& c, const std::vector<TelemetryMetric>& table) {
  if (c.outcome.timeline.empty()) return;
  for (const bk::TelemetryReading& r : c.outcome.timeline.back().telemetry) {
    for (const TelemetryMetric& m : table) {
      if (m.reading != r.name) continue;
      std::vector<std::pair<std::string, std::string>> labels{{"device", c.device}};
      labels.insert(labels.end(), m.labels.begin(), m.labels.end());
      m.family->add(labels, r.value);
    }
  }
}

}  // namespace

std::string smoke_prometheus(const SmokeReport& report) {
  Family info("bk_device_info", "A device bkctl smoke found (always 1; its details in the labels).");
  Family status("bk_smoke_check_status",
                "A smoke check's outcome: 1 for its status, 0 for the others (a state set).");
  Family seconds("bk_smoke_check_duration_seconds", "Wall seconds a smoke check took.");
  Family memory("bk_device_memory_bytes", "Device memory at enumeration, by kind (free, total).");
  Family bandwidth(
      "bk_smoke_bandwidth_bytes_per_second",
      "Bandwidth a smoke check measured, by direction (write, read, host_to_device, device_to_host).");
  Family gflops("bk_bench_gflops",
                "Median f32 matrix-multiply GFLOP/s a smoke check measured (matmul, sustained).");
  Family temperature("bk_device_temperature_celsius", "The device's temperature at the end of the burn-in.");
  Family clock("bk_device_clock_mhz",
               "A clock at the end of the burn-in, by clock (sm, memory, cpu; max_sm).");
  Family power("bk_device_power_watts", "Power draw at the end of the burn-in, by kind (draw, limit).");
  Family ecc("bk_device_ecc_errors", "ECC errors since the driver loaded, by kind (corrected, uncorrected).");
  Family pcie("bk_device_pcie_link",
              "The PCIe link at the end of the burn-in: gen and width, now and maximum.");
  Family throttle("bk_device_throttle_reasons", "NVML's clock throttle reasons, a bit mask (0: none).");
  const std::vector<TelemetryMetric> telemetry_table = {
      {"temperature_c", &temperature, {}},
      {"sm_clock_mhz", &clock, {{"clock", "sm"}}},
      {"max_sm_clock_mhz", &clock, {{"clock", "max_sm"}}},
      {"memory_clock_mhz", &clock, {{"clock", "memory"}}},
      {"cpu_mhz", &clock, {{"clock", "cpu"}}},
      {"power_w", &power, {{"kind", "draw"}}},
      {"power_limit_w", &power, {{"kind", "limit"}}},
      {"ecc_corrected_total", &ecc, {{"kind", "corrected"}}},
      {"ecc_uncorrected_total", &ecc, {{"kind", "uncorrected"}}},
      {"pcie_gen", &pcie, {{"property", "gen"}, {"of", "current"}}},
      {"pcie_gen_max", &pcie, {{"property", "gen"}, {"of", "max"}}},
      {"pcie_width", &pcie, {{"property", "width"}, {"of", "current"}}},
      {"pcie_width_max", &pcie, {{"property", "width"}, {"of", "max"}}},
      {"throttle_reasons", &throttle, {}},
  };
  Family exit_code("bk_smoke_exit_code",
                   "bkctl smoke's exit code: 0 all good (docs/ci.md lists the others).");
  Family wall("bk_smoke_duration_seconds", "Wall seconds of the whole smoke run.");
  Family finished("bk_smoke_completion_timestamp_seconds", "When the smoke report was written, Unix time.");

  for (const SmokeDeviceInfo& d : report.devices) {
    info.add({{"device", d.name},
              {"description", d.description},
              {"type", d.type},
              {"family", d.family},
              {"simulated", d.simulated ? "yes" : "no"}},
             1);
  }
  // The checks' GB/s metrics, by the direction they measure.
  constexpr std::pair<std::string_view, const char*> kRates[] = {{"write_gbps", "write"},
                                                                 {"read_gbps", "read"},
                                                                 {"host_to_device_gbps", "host_to_device"},
                                                                 {"device_to_host_gbps", "device_to_host"}};
  for (const SmokeCheckRecord& c : report.checks) {
    for (bk::SmokeStatus s : bk::kSmokeStatuses) {
      status.add(
          {{"device", c.device}, {"check", c.check}, {"status", std::string(bk::smoke_status_name(s))}},
          c.outcome.status == s ? 1 : 0);
    }
    seconds.add({{"device", c.device}, {"check", c.check}}, c.seconds);
    if (const bk::SmokeMetric* m = metric(c, "memory_free_bytes"))
      memory.add({{"device", c.device}, {"kind", "free"}}, m->value);
    if (const bk::SmokeMetric* m = metric(c, "memory_total_bytes"))
      memory.add({{"device", c.device}, {"kind", "total"}}, m->value);
    for (const auto& [name, direction] : kRates) {
      if (const bk::SmokeMetric* m = metric(c, name))
        bandwidth.add({{"device", c.device}, {"check", c.check}, {"direction", direction}}, m->value * 1e9);
    }
    if (const bk::SmokeMetric* m = metric(c, "median_gflops"))
      gflops.add({{"device", c.device}, {"test", c.check}, {"dtype", "f32"}}, m->value);
    add_telemetry(c, telemetry_table);
  }
  exit_code.add(report.exit_code);
  wall.add(report.wall_seconds);
  finished.add(static_cast<double>(std::time(nullptr)));

  std::string out;
  for (const Family* f : {&info, &status, &seconds, &memory, &bandwidth, &gflops, &temperature, &clock,
                          &power, &ecc, &pcie, &throttle, &exit_code, &wall, &finished})
    out += f->render();
  return out;
}

}  // namespace bkctl
