// SPDX-License-Identifier: MIT
#pragma once
// What the host tells about its processors while they work, for CpuDevice::telemetry():
//   cpu_mhz        the mean current clock over the logical CPUs (cpufreq's scaling_cur_freq,
//                  else /proc/cpuinfo's "cpu MHz", which virtual machines often report fixed)
//   temperature_c  the hottest CPU sensor (hwmon coretemp, k10temp, zenpower, cpu_thermal;
//                  else thermal zones x86_pkg_temp, cpu-thermal); virtual machines have none
// A reading that cannot be had is left out. Reads sysfs and procfs; never throws.

#include <optional>
#include <string_view>
#include <vector>

#include "bk/device.h"

namespace bk {

std::vector<TelemetryReading> cpu_telemetry() noexcept;

// The mean of /proc/cpuinfo's "cpu MHz" lines, or nothing when there are none.
std::optional<double> mean_cpuinfo_mhz(std::string_view cpuinfo);

}  // namespace bk
