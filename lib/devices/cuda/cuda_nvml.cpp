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
constexpr unsigned kEccCorrected = 0;    // NVML_MEMORY_ERROR_TYPE_CORRECTED
constexpr unsigned kEccUncorrected = 1;  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr unsigned kEccVolatile = 0;     // NVML_VOLATILE_ECC

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
  // Optional: older drivers or boards lack them, and then those readings are absent.
  NvmlReturn (*throttle_reasons)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*ecc_total)(NvmlDevice, unsigned, unsigned, unsigned long long*) = nullptr;
  NvmlReturn (*pcie_gen)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*pcie_gen_max)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*pcie_width)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*pcie_width_max)(NvmlDevice, unsigned*) = nullptr;
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
  resolve(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", f.throttle_reasons);
  resolve(lib, "nvmlDeviceGetTotalEccErrors", f.ecc_total);
  resolve(lib, "nvmlDeviceGetCurrPcieLinkGeneration", f.pcie_gen);
  resolve(lib, "nvmlDeviceGetMaxPcieLinkGeneration", f.pcie_gen_max);
  resolve(lib, "nvmlDeviceGetCurrPcieLinkWidth", f.pcie_width);
  resolve(lib, "nvmlDeviceGetMaxPcieLinkWidth", f.pcie_width_max);
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
template <typename Value = unsigned, typename Query>
std::optional<Value> reading(Query query) {
  Value value = 0;
  if (query(&value) != 0) return std::nullopt;
  return value;
}

// An optional entry point's reading: nothing when the driver lacks it.
template <typename Value = unsigned, typename Fn, typename... Args>
std::optional<Value> optional_reading(Fn fn, NvmlDevice device, Args... args) {
  if (fn == nullptr) return std::nullopt;
  return reading<Value>([&](Value* v) { return fn(device, args..., v); });
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
    using Count = unsigned long long;
    t.throttle_reasons = optional_reading<Count>(f.throttle_reasons, device);
    t.ecc_corrected_total = optional_reading<Count>(f.ecc_total, device, kEccCorrected, kEccVolatile);
    t.ecc_uncorrected_total = optional_reading<Count>(f.ecc_total, device, kEccUncorrected, kEccVolatile);
    t.pcie_gen = optional_reading(f.pcie_gen, device);
    t.pcie_gen_max = optional_reading(f.pcie_gen_max, device);
    t.pcie_width = optional_reading(f.pcie_width, device);
    t.pcie_width_max = optional_reading(f.pcie_width_max, device);
  } catch (const std::exception& e) {
    t.available = false;
    t.reason = e.what();
  }
  return t;
}

std::vector<TelemetryReading> telemetry_readings(const CudaTelemetry& t) {
  std::vector<TelemetryReading> out;
  if (!t.available) return out;
  auto add = [&out](const char* name, const auto& value) {
    if (value) out.push_back({name, static_cast<double>(*value)});
  };
  add("temperature_c", t.temperature_c);
  add("sm_clock_mhz", t.sm_clock_mhz);
  add("memory_clock_mhz", t.memory_clock_mhz);
  add("max_sm_clock_mhz", t.max_sm_clock_mhz);
  add("power_w", t.power_w);
  add("power_limit_w", t.power_limit_w);
  add("throttle_reasons", t.throttle_reasons);
  add("ecc_corrected_total", t.ecc_corrected_total);
  add("ecc_uncorrected_total", t.ecc_uncorrected_total);
  add("pcie_gen", t.pcie_gen);
  add("pcie_gen_max", t.pcie_gen_max);
  add("pcie_width", t.pcie_width);
  add("pcie_width_max", t.pcie_width_max);
  return out;
}

}  // namespace bk
