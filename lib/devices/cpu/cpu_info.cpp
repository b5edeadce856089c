// SPDX-License-Identifier: MIT
#include "devices/cpu/cpu_info.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>

#include "bk/error.h"
#include "bk/strings.h"
#include "devices/cpu/cgroup_memory.h"
#include "devices/cpu/cpu_topology.h"

#if defined(__linux__)
#include <sys/sysinfo.h>
#elif defined(__APPLE__)
#include <mach/mach.h>
#include <sys/sysctl.h>
#elif defined(_WIN32)
#include <windows.h>
#endif

namespace bk {
namespace {

// The value after "key:" on the first line that starts with key, trimmed.
std::optional<std::string> find_field(std::string_view text, std::string_view key) {
  for (const std::string& line : split(text, '\n')) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos || trim(std::string_view(line).substr(0, colon)) != key) continue;
    return trim(std::string_view(line).substr(colon + 1));
  }
  return std::nullopt;
}

// "24683584 kB" -> bytes.
std::optional<size_t> parse_kib(const std::optional<std::string>& field) {
  if (!field) return std::nullopt;
  size_t kib = 0;
  const char* end = field->data() + field->size();
  const auto [ptr, ec] = std::from_chars(field->data(), end, kib);
  if (ec != std::errc{} || trim(std::string_view(ptr, static_cast<size_t>(end - ptr))) != "kB")
    return std::nullopt;
  if (kib > SIZE_MAX / 1024) return std::nullopt;
  return kib * 1024;
}

#if defined(__linux__)
std::optional<std::string> read_file(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
#endif

std::optional<std::string> os_brand() {
#if defined(__linux__)
  const auto cpuinfo = read_file("/proc/cpuinfo");
  return cpuinfo ? parse_cpuinfo_model_name(*cpuinfo) : std::nullopt;
#elif defined(__APPLE__)
  char buf[256] = {};
  size_t len = sizeof(buf);
  if (sysctlbyname("machdep.cpu.brand_string", buf, &len, nullptr, 0) != 0) return std::nullopt;
  return trim(buf);
#elif defined(_WIN32)
  char buf[256] = {};
  DWORD len = sizeof(buf);
  if (RegGetValueA(HKEY_LOCAL_MACHINE, "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                   "ProcessorNameString", RRF_RT_REG_SZ, nullptr, buf, &len) != ERROR_SUCCESS) {
    return std::nullopt;
  }
  return trim(buf);
#else
  return std::nullopt;
#endif
}

std::string find_brand() {
  if (auto brand = os_brand(); brand && !brand->empty()) return *brand;
  // hwloc is only loaded when the OS files say nothing (e.g. ARM Linux has no "model name").
  if (const std::string& model = cpu_topology().model; !model.empty()) return model;
  return "CPU";
}

std::optional<MemoryInfo> os_memory() {
#if defined(__linux__)
  if (const auto meminfo = read_file("/proc/meminfo")) {
    if (auto info = parse_meminfo(*meminfo)) return info;
  }
  struct sysinfo si {};
  if (sysinfo(&si) != 0) return std::nullopt;
  // Without MemAvailable (kernels before 3.14) free plus buffers is the closest estimate.
  return MemoryInfo{(si.freeram + si.bufferram) * si.mem_unit, si.totalram * si.mem_unit};
#elif defined(__APPLE__)
  uint64_t total = 0;
  size_t len = sizeof(total);
  if (sysctlbyname("hw.memsize", &total, &len, nullptr, 0) != 0) return std::nullopt;
  vm_statistics64_data_t vm{};
  mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
  if (host_statistics64(mach_host_self(), HOST_VM_INFO64, reinterpret_cast<host_info64_t>(&vm), &count) !=
      KERN_SUCCESS) {
    return std::nullopt;
  }
  const uint64_t avail = (uint64_t{vm.free_count} + vm.inactive_count) * vm_kernel_page_size;
  return MemoryInfo{static_cast<size_t>(avail), static_cast<size_t>(total)};
#elif defined(_WIN32)
  MEMORYSTATUSEX status{};
  status.dwLength = sizeof(status);
  if (!GlobalMemoryStatusEx(&status)) return std::nullopt;
  return MemoryInfo{static_cast<size_t>(status.ullAvailPhys), static_cast<size_t>(status.ullTotalPhys)};
#else
  return std::nullopt;
#endif
}

}  // namespace

std::optional<std::string> parse_cpuinfo_model_name(std::string_view cpuinfo) {
  auto name = find_field(cpuinfo, "model name");
  if (!name || name->empty()) return std::nullopt;
  return name;
}

std::optional<MemoryInfo> parse_meminfo(std::string_view meminfo) {
  const auto total = parse_kib(find_field(meminfo, "MemTotal"));
  const auto avail = parse_kib(find_field(meminfo, "MemAvailable"));
  if (!total || !avail || *total == 0) return std::nullopt;
  return MemoryInfo{std::min(*avail, *total), *total};
}

const std::string& cpu_brand() {
  static const std::string brand = find_brand();
  return brand;
}

MemoryInfo cpu_memory() {
  const auto info = os_memory();
  if (!info || info->total == 0) {
    throw Error(ErrorCode::device_error,
                "CPU: the operating system reports no system memory (on Linux both /proc/meminfo and "
                "sysinfo() failed); check that /proc is mounted");
  }
  MemoryInfo memory{std::min(info->free, info->total), info->total};
  if (const auto cgroup = cgroup_memory_limit()) {
    memory.total = std::min(memory.total, cgroup->limit);
    memory.free = std::min(memory.free, cgroup->headroom());
  }
  return memory;
}

}  // namespace bk
