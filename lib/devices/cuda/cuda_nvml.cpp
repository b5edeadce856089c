// SPDX-License-Identifier: MIT
#include "devices/cuda/cuda_nvml.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

namespace bk {
namespace {

// The few NVML entry points used, declared here: the toolkit does not ship nvml.h everywhere,
// and these signatures are part of NVML's stable C ABI.
using NvmlReturn = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr unsigned kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
constexpr unsigned kClockSm = 1;         // NVML_CLOCK_SM
constexpr unsigned kClockMem = 2;        // NVML_CLOCK_MEM

struct NvmlFns {
  NvmlReturn (*init)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*handle_by_pci)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, unsigned, unsigned*) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, unsigned, unsigned*) = nullptr;
  NvmlReturn (*max_clock)(NvmlDevice, unsigned, unsigned*) = nullptr;
  NvmlReturn (*power)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*power_limit)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*driver_version)(char*, unsigned) = nullptr;
};

struct Nvml {
  NvmlFns fn;
  std::string reason;  // empty when usable
};

template <typename F>
bool resolve(void* lib, const char* symbol, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, symbol));
  return out != nullptr;
}

Nvml open_nvml() {
  Nvml n;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    n.reason = fmt::format("NVML not available (libnvidia-ml.so.1: {}); no temperature, clocks or power",
                           why != nullptr ? why : "not found");
    return n;
  }
  // The library stays loaded until the process exits, like the driver it belongs to.
  NvmlFns& f = n.fn;
  const bool ok = resolve(lib, "nvmlInit_v2", f.init) && resolve(lib, "nvmlErrorString", f.error_string) &&
                  resolve(lib, "nvmlDeviceGetHandleByPciBusId_v2", f.handle_by_pci) &&
                  resolve(lib, "nvmlDeviceGetTemperature", f.temperature) &&
                  resolve(lib, "nvmlDeviceGetClockInfo", f.clock) &&
                  resolve(lib, "nvmlDeviceGetMaxClockInfo", f.max_clock) &&
                  resolve(lib, "nvmlDeviceGetPowerUsage", f.power) &&
                  resolve(lib, "nvmlDeviceGetEnforcedPowerLimit", f.power_limit) &&
                  resolve(lib, "nvmlSystemGetDriverVersion", f.driver_version);
  if (!ok) {
    n.reason = "NVML (libnvidia-ml.so.1) lacks an expected entry point; the driver is too old for telemetry";
    return n;
  }
  if (const NvmlReturn r = f.init(); r != 0) {
    n.reason = fmt::format("nvmlInit_v2 failed ({}, {})", f.error_string(r), r);
  }
  return n;
}

const Nvml& nvml() {
  static std::once_flag once;
  static Nvml instance;
  std::call_once(once, [] { instance = open_nvml(); });
  return instance;
}

// One NVML query with an unsigned out-parameter: its value, or nothing when NVML refused. The call
// must finish before the value is read, hence a function that calls it (the order in which a
// call's arguments are evaluated is unspecified: reading(f(&v), v) read the previous query's v,
// seen as swapped clocks on an H200).
template <typename Query>
std::optional<unsigned> reading(Query query) {
  unsigned value = 0;
  if (query(&value) != 0) return std::nullopt;
  return value;
}

}  // namespace

CudaTelemetry cuda_telemetry(const std::string& pci_bus_id) noexcept {
  CudaTelemetry t;
  try {
    const Nvml& n = nvml();
    if (!n.reason.empty()) {
      t.reason = n.reason;
      return t;
    }
    const NvmlFns& f = n.fn;
    NvmlDevice device = nullptr;
    if (const NvmlReturn r = f.handle_by_pci(pci_bus_id.c_str(), &device); r != 0) {
      t.reason = fmt::format("NVML does not know PCI device {} ({}, {})", pci_bus_id, f.error_string(r), r);
      return t;
    }
    t.available = true;
    char version[96] = {};
    if (f.driver_version(version, sizeof version) == 0) t.driver_version = version;
    t.temperature_c = reading([&](unsigned* v) { return f.temperature(device, kTemperatureGpu, v); });
    t.sm_clock_mhz = reading([&](unsigned* v) { return f.clock(device, kClockSm, v); });
    t.memory_clock_mhz = reading([&](unsigned* v) { return f.clock(device, kClockMem, v); });
    t.max_sm_clock_mhz = reading([&](unsigned* v) { return f.max_clock(device, kClockSm, v); });
    t.max_memory_clock_mhz = reading([&](unsigned* v) { return f.max_clock(device, kClockMem, v); });
    // NVML reports milliwatts.
    if (const auto mw = reading([&](unsigned* v) { return f.power(device, v); })) t.power_w = *mw / 1000.0;
    if (const auto mw = reading([&](unsigned* v) { return f.power_limit(device, v); }))
      t.power_limit_w = *mw / 1000.0;
  } catch (const std::exception& e) {
    t.available = false;
    t.reason = e.what();
  }
  return t;
}

}  // namespace bk
