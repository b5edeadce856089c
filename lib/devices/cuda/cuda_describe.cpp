// CudaDevice::describe: the properties `bkctl devices --verbose` and --json show.

#include <nlohmann/json.hpp>

#include "devices/cuda/cuda_blas.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_nvml.h"

namespace bk {
namespace {

template <typename T>
nlohmann::json optional(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

nlohmann::json telemetry_json(const CudaTelemetry& t) {
  if (!t.available) return {{"source", "nvml"}, {"available", false}, {"reason", t.reason}};
  return {{"source", "nvml"},
          {"available", true},
          {"nvidia_driver_version", t.driver_version},
          {"temperature_c", optional(t.temperature_c)},
          {"sm_clock_mhz", optional(t.sm_clock_mhz)},
          {"memory_clock_mhz", optional(t.memory_clock_mhz)},
          {"max_sm_clock_mhz", optional(t.max_sm_clock_mhz)},
          {"max_memory_clock_mhz", optional(t.max_memory_clock_mhz)},
          {"power_w", optional(t.power_w)},
          {"power_limit_w", optional(t.power_limit_w)}};
}

}  // namespace

void CudaDevice::describe(nlohmann::json& out) const {
  const CudaDeviceInfo& i = info_;
  out["ordinal"] = i.ordinal;
  out["compute_capability"] = std::to_string(i.cc_major) + "." + std::to_string(i.cc_minor);
  out["sm_count"] = i.sm_count;
  out["pci_bus_id"] = i.pci_bus_id;
  out["uuid"] = i.uuid;
  out["integrated"] = i.integrated;
  out["driver_cuda_version"] = cuda_version_string(i.driver_version);
  out["runtime_version"] = cuda_version_string(i.runtime_version);
  out["total_memory"] = i.total_memory;
  out["memory_bus_width_bits"] = i.memory_bus_width;
  out["l2_cache_size"] = i.l2_cache_size;
  out["clock_khz"] = i.clock_khz != 0 ? nlohmann::json(i.clock_khz) : nlohmann::json();
  out["memory_clock_khz"] = i.memory_clock_khz != 0 ? nlohmann::json(i.memory_clock_khz) : nlohmann::json();
  out["limits"] = {{"warp_size", i.warp_size},
                   {"max_threads_per_block", i.max_threads_per_block},
                   {"max_grid_x", i.max_grid_x},
                   {"shared_memory_per_block_optin", i.shared_memory_per_block_optin},
                   {"async_engines", i.async_engines}};
  out["unified_addressing"] = i.unified_addressing;
  out["memory_pools"] = i.memory_pools;
  out["ecc_enabled"] = i.ecc_enabled;
  out["tf32_mul_mat"] = options_.tf32;
  std::string why;
  const bool blas = cublas_library(&why) != nullptr;
  out["cublas"] = blas ? nlohmann::json{{"loaded", true}, {"path", cublas_library_status()}}
                       : nlohmann::json{{"loaded", false}, {"reason", why}};
  out["telemetry"] = telemetry_json(cuda_telemetry(i.pci_bus_id));
}

}  // namespace bk
