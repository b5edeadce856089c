// SPDX-License-Identifier: MIT
#include "devices/cpu/cpu_telemetry.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace bk {
namespace {

namespace fs = std::filesystem;

std::optional<double> read_number(const fs::path& path) {
  std::ifstream in(path);
  double value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

std::string read_word(const fs::path& path) {
  std::ifstream in(path);
  std::string word;
  in >> word;
  return word;
}

std::optional<double> mean_scaling_mhz() {
  double sum = 0;
  int count = 0;
  std::error_code ec;
  for (const fs::directory_entry& cpu : fs::directory_iterator("/sys/devices/system/cpu", ec)) {
    const std::string name = cpu.path().filename().string();
    if (name.rfind("cpu", 0) != 0 || name.size() < 4 || name[3] < '0' || name[3] > '9') continue;
    if (const auto khz = read_number(cpu.path() / "cpufreq" / "scaling_cur_freq")) {
      sum += *khz / 1000;
      ++count;
    }
  }
  return count > 0 ? std::optional<double>(sum / count) : std::nullopt;
}

std::optional<double> mean_mhz() {
  if (auto mhz = mean_scaling_mhz()) return mhz;
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  return mean_cpuinfo_mhz(text.str());
}

bool is_cpu_sensor(std::string_view name) {
  for (std::string_view known :
       {"coretemp", "k10temp", "zenpower", "cpu_thermal", "x86_pkg_temp", "cpu-thermal"}) {
    if (name == known) return true;
  }
  return false;
}

// The largest of the readings in millidegrees Celsius, in degrees.
void take_hottest(const std::optional<double>& millidegrees, std::optional<double>& hottest) {
  if (millidegrees && (!hottest || *millidegrees / 1000 > *hottest)) hottest = *millidegrees / 1000;
}

std::optional<double> hottest_cpu_sensor() {
  std::optional<double> hottest;
  std::error_code ec;
  for (const fs::directory_entry& hwmon : fs::directory_iterator("/sys/class/hwmon", ec)) {
    if (!is_cpu_sensor(read_word(hwmon.path() / "name"))) continue;
    std::error_code inner;
    for (const fs::directory_entry& file : fs::directory_iterator(hwmon.path(), inner)) {
      const std::string name = file.path().filename().string();
      if (name.rfind("temp", 0) == 0 && name.ends_with("_input"))
        take_hottest(read_number(file.path()), hottest);
    }
  }
  if (hottest) return hottest;
  for (const fs::directory_entry& zone : fs::directory_iterator("/sys/class/thermal", ec)) {
    if (is_cpu_sensor(read_word(zone.path() / "type")))
      take_hottest(read_number(zone.path() / "temp"), hottest);
  }
  return hottest;
}

}  // namespace

std::optional<double> mean_cpuinfo_mhz(std::string_view cpuinfo) {
  double sum = 0;
  int count = 0;
  size_t at = 0;
  while ((at = cpuinfo.find("cpu MHz", at)) != std::string_view::npos) {
    const size_t colon = cpuinfo.find(':', at);
    if (colon == std::string_view::npos) break;
    size_t begin = colon + 1;
    while (begin < cpuinfo.size() && cpuinfo[begin] == ' ') ++begin;
    double value = 0;
    const auto [end, error] = std::from_chars(cpuinfo.data() + begin, cpuinfo.data() + cpuinfo.size(), value);
    if (error == std::errc()) {
      sum += value;
      ++count;
    }
    at = colon;
  }
  return count > 0 ? std::optional<double>(sum / count) : std::nullopt;
}

std::vector<TelemetryReading> cpu_telemetry() noexcept {
  std::vector<TelemetryReading> out;
  try {
    if (const auto mhz = mean_mhz()) out.push_back({"cpu_mhz", *mhz});
    if (const auto celsius = hottest_cpu_sensor()) out.push_back({"temperature_c", *celsius});
  } catch (...) {  // a filesystem error or bad_alloc: no readings rather than a failed burn-in
    out.clear();
  }
  return out;
}

}  // namespace bk
