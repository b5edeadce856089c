// SPDX-License-Identifier: MIT
#pragma once
// Optional GPU telemetry through NVML (libnvidia-ml.so.1, installed with the NVIDIA driver).
//
// NVML is dlopened on first use and never linked, so the plugin loads where it is absent; then
// every reading is empty and `reason` says why. Readings a GPU does not support (power on some
// boards) are simply absent. Thread-safe: NVML is opened and initialised once per process.

#include <optional>
#include <string>

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
};

// Reads the GPU at `pci_bus_id` ("0000:65:00.0"). Never throws.
CudaTelemetry cuda_telemetry(const std::string& pci_bus_id) noexcept;

}  // namespace bk
