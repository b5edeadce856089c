// SPDX-License-Identifier: MIT
#pragma once
// What the operating system says about the host CPU and its memory.
//
// cpu_brand() is read once and cached (the brand cannot change while we run); cpu_memory() asks
// the OS on every call, because free memory does. Both are cheap enough for device listing:
// neither loads hwloc unless the brand cannot be found any other way.
//
// Threading: both may be called from any thread. Errors: cpu_brand() never throws (it falls back
// to "CPU"); cpu_memory() throws Error(device_error) only when the OS reports no memory at all.

#include <optional>
#include <string>
#include <string_view>

#include "bk/device.h"

namespace bk {

// The CPU's marketing name: Linux /proc/cpuinfo "model name", else hwloc's CPUModel, else "CPU";
// macOS machdep.cpu.brand_string; Windows the registry's ProcessorNameString.
const std::string& cpu_brand();

// Total and available system memory. total is never 0, and free is what the OS estimates can be
// allocated without swapping (MemAvailable), so it is below total on any running system. Both are
// capped by this process's cgroup memory limit where there is one (cgroup_memory.h).
MemoryInfo cpu_memory();

// Parsers for the Linux files, exposed so tests can feed them text. Each returns nullopt when the
// text does not contain what is needed.
std::optional<std::string> parse_cpuinfo_model_name(std::string_view cpuinfo);  // the first one
std::optional<MemoryInfo> parse_meminfo(std::string_view meminfo);              // MemTotal and MemAvailable

}  // namespace bk
