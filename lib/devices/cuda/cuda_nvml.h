// SPDX-License-Identifier: MIT
#pragma once
// Optional GPU telemetry through NVML (libnvidia-ml.so.1, installed with the NVIDIA driver).
//
// NVML is dlopened on first use and never linked, so the plugin loads where it is absent; then
// every reading is empty and `reason` says why. Readings a GPU does not support (power on some
// boards) are simply absent. Thread-safe: NVML is opened and initialised once per process.

#include <optional>
#include <string>
#include <vector>

#include "bk/device.h"

namespace bk {

struct CudaTelemetry {
  bool available = false;
  std::string reason;          // why not, when !available
  std::string driver_version;  // "560.35.03"
  std::optional<unsigned> temperature_c;
  std::optional<unsigned> sm_clock_mhz;
  std::optional<unsigned> memory_clock_mhz;
  std::optional<unsigned> max_sm_clock_mhz;
  std::optional<unsigned> max_memory_clock_mhz;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;
  // nvmlClocksThrottleReasons bits: 0x8 hardware slowdown, 0x20 software thermal, 0x40
  // hardware thermal, 0x80 power brake, 0x4 software power cap, ...
  std::optional<unsigned long long> throttle_reasons;
  std::optional<unsigned long long> ecc_corrected_total;    // volatile counters, since the driver
  std::optional<unsigned long long> ecc_uncorrected_total;  // loaded; absent with ECC off
  std::optional<unsigned> pcie_gen, pcie_gen_max;           // the link now, and the most the
  std::optional<unsigned> pcie_width, pcie_width_max;       // device and the system allow
};

// The readings above as Device::telemetry() names them (docs/ci.md); none when !available.
std::vector<TelemetryReading> telemetry_readings(const CudaTelemetry& t);

// Reads the GPU at `pci_bus_id` ("0000:65:00.0"). Never throws.
CudaTelemetry cuda_telemetry(const std::string& pci_bus_id) noexcept;

}  // namespace bk
