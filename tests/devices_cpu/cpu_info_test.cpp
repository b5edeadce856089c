// SPDX-License-Identifier: MIT
#include "devices/cpu/cpu_info.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "devices/cpu/cgroup_memory.h"
#include "devices/cpu/cpu_telemetry.h"
#include "proc_text.h"

namespace bk {
namespace {

TEST(CpuInfo, BrandIsTheFirstModelNameInProcCpuinfo) {
  const auto cpuinfo = test::read_proc("/proc/cpuinfo");
  if (!cpuinfo) GTEST_SKIP() << "no /proc/cpuinfo on this system";
  const auto names = test::proc_values(*cpuinfo, "model name");
  if (names.empty() || names.front().empty()) {
    // ARM Linux has no "model name": the brand then comes from hwloc or is "CPU".
    EXPECT_FALSE(cpu_brand().empty());
    return;
  }
  EXPECT_EQ(cpu_brand(), names.front());
}

TEST(CpuTelemetry, MeanClockOfCpuinfo) {
  EXPECT_DOUBLE_EQ(
      *mean_cpuinfo_mhz("processor\t: 0\ncpu MHz\t\t: 2000.000\nprocessor\t: 1\ncpu MHz\t\t: 3000.5\n"),
      2500.25);
  EXPECT_FALSE(mean_cpuinfo_mhz("processor\t: 0\nBogoMIPS\t: 50.00\n").has_value()) << "ARM has no cpu MHz";
  EXPECT_FALSE(mean_cpuinfo_mhz("cpu MHz\t\t: unknown\n").has_value());
}

TEST(CpuTelemetry, ReadingsAreSaneWhereTheHostHasThem) {
  // Virtual machines often have no temperature sensor; x86 Linux always has a clock in cpuinfo.
  for (const TelemetryReading& r : cpu_telemetry()) {
    if (r.name == "cpu_mhz")
      EXPECT_GT(r.value, 100) << "MHz";
    else if (r.name == "temperature_c")
      EXPECT_TRUE(r.value > -50 && r.value < 150) << r.value;
    else
      ADD_FAILURE() << "unexpected reading " << r.name;
  }
}

TEST(CpuInfo, MemoryTotalMatchesMemTotal) {
  const auto meminfo = test::read_proc("/proc/meminfo");
  if (!meminfo) GTEST_SKIP() << "no /proc/meminfo on this system";
  const auto totals = test::proc_values(*meminfo, "MemTotal");
  ASSERT_FALSE(totals.empty());
  double expected = std::strtod(totals.front().c_str(), nullptr) * 1024.0;  // "24683584 kB"
  ASSERT_GT(expected, 0.0);
  // In a container or a CI job with a memory limit, the limit is the total.
  if (const auto cgroup = cgroup_memory_limit())
    expected = std::min(expected, static_cast<double>(cgroup->limit));
  const MemoryInfo mem = cpu_memory();
  EXPECT_NEAR(static_cast<double>(mem.total), expected, expected * 0.01);
}

TEST(CpuInfo, AvailableMemoryIsPositiveAndBelowTotal) {
  const MemoryInfo mem = cpu_memory();
  EXPECT_GT(mem.total, 0u);
  EXPECT_GT(mem.free, 0u);
  EXPECT_LT(mem.free, mem.total);
}

TEST(CpuInfoParse, ModelNameIsTheFirstOne) {
  const std::string text =
      "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t:   Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz  "
      "\n\n"
      "processor\t: 1\nmodel name\t: Another CPU\n";
  EXPECT_EQ(parse_cpuinfo_model_name(text), "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz");
}

TEST(CpuInfoParse, MissingOrEmptyModelNameIsNullopt) {
  EXPECT_FALSE(parse_cpuinfo_model_name("processor\t: 0\nCPU part\t: 0xd0c\n"));
  EXPECT_FALSE(parse_cpuinfo_model_name("model name\t:\n"));
  EXPECT_FALSE(parse_cpuinfo_model_name(""));
}

TEST(CpuInfoParse, MeminfoInBytes) {
  const auto mem =
      parse_meminfo("MemTotal:       24683584 kB\nMemFree:        24490924 kB\nMemAvailable:   1000 kB\n");
  ASSERT_TRUE(mem);
  EXPECT_EQ(mem->total, 24683584ull * 1024);
  EXPECT_EQ(mem->free, 1000ull * 1024);
}

TEST(CpuInfoParse, MeminfoWithoutAvailableOrWithBadUnitsIsNullopt) {
  EXPECT_FALSE(parse_meminfo("MemTotal: 1000 kB\nMemFree: 10 kB\n"));  // kernels before 3.14
  EXPECT_FALSE(parse_meminfo("MemTotal: 1000 MB\nMemAvailable: 10 kB\n"));
  EXPECT_FALSE(parse_meminfo("MemTotal: lots kB\nMemAvailable: 10 kB\n"));
  EXPECT_FALSE(parse_meminfo("MemTotal: 0 kB\nMemAvailable: 0 kB\n"));
  EXPECT_FALSE(parse_meminfo("MemTotal: 99999999999999999999 kB\nMemAvailable: 1 kB\n"));
}

TEST(CpuInfoParse, AvailableNeverExceedsTotal) {
  const auto mem = parse_meminfo("MemTotal: 1000 kB\nMemAvailable: 2000 kB\n");
  ASSERT_TRUE(mem);
  EXPECT_LE(mem->free, mem->total);
}

}  // namespace
}  // namespace bk
