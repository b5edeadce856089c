// SPDX-License-Identifier: MIT
// CudaDevice::describe: the properties `bkctl devices --verbose` and --json show.

#include "devices/cuda/cuda_blas.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_nvml.h"

namespace bk {
namespace {

void describe_telemetry(const CudaTelemetry& t, Properties& out) {
  out.set("telemetry.source", "nvml");
  out.set("telemetry.available", t.available);
  if (!t.available) {
    out.set("telemetry.reason", t.reason);
    return;
  }
  out.set("telemetry.nvidia_driver_version", t.driver_version);
  out.set("telemetry.temperature_c", t.temperature_c);
  out.set("telemetry.sm_clock_mhz", t.sm_clock_mhz);
  out.set("telemetry.memory_clock_mhz", t.memory_clock_mhz);
  out.set("telemetry.max_sm_clock_mhz", t.max_sm_clock_mhz);
  out.set("telemetry.max_memory_clock_mhz", t.max_memory_clock_mhz);
  out.set("telemetry.power_w", t.power_w);
  out.set("telemetry.power_limit_w", t.power_limit_w);
}

// Zero means the driver did not say: null.
void set_known(Properties& out, std::string_view key, int value) {
  if (value != 0) {
    out.set(key, value);
  } else {
    out.set_null(key);
  }
}

}  // namespace

std::vector<TelemetryReading> CudaDevice::telemetry() const {
  return telemetry_readings(cuda_telemetry(info_.pci_bus_id));
}

void CudaDevice::describe(Properties& out) const {
  const CudaDeviceInfo& i = info_;
  out.set("ordinal", i.ordinal);
  out.set("compute_capability", std::to_string(i.cc_major) + "." + std::to_string(i.cc_minor));
  out.set("sm_count", i.sm_count);
  out.set("pci_bus_id", i.pci_bus_id);
  out.set("uuid", i.uuid);
  out.set("integrated", i.integrated);
  out.set("driver_cuda_version", cuda_version_string(i.driver_version));
  out.set("runtime_version", cuda_version_string(i.runtime_version));
  out.set("total_memory", i.total_memory);
  out.set("memory_bus_width_bits", i.memory_bus_width);
  out.set("l2_cache_size", i.l2_cache_size);
  set_known(out, "clock_khz", i.clock_khz);
  set_known(out, "memory_clock_khz", i.memory_clock_khz);
  out.set("limits.warp_size", i.warp_size);
  out.set("limits.max_threads_per_block", i.max_threads_per_block);
  out.set("limits.max_grid_x", i.max_grid_x);
  out.set("limits.shared_memory_per_block_optin", i.shared_memory_per_block_optin);
  out.set("limits.async_engines", i.async_engines);
  out.set("unified_addressing", i.unified_addressing);
  out.set("memory_pools", i.memory_pools);
  out.set("ecc_enabled", i.ecc_enabled);
  out.set("tf32_mul_mat", options_.tf32);
  std::string why;
  const bool blas = cublas_library(&why) != nullptr;
  out.set("cublas.loaded", blas);
  out.set(blas ? "cublas.path" : "cublas.reason", blas ? cublas_library_status() : why);
  describe_telemetry(cuda_telemetry(i.pci_bus_id), out);
}

}  // namespace bk
