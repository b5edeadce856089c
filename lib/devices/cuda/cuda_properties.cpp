// SPDX-License-Identifier: MIT
#include "devices/cuda/cuda_properties.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "bk/strings.h"
#include "devices/cuda/cuda_error.h"

namespace bk {
namespace {

int attribute(cudaDeviceAttr attr, int ordinal) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attr, ordinal) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return value;
}

std::string pci_bus_id(int ordinal, const cudaDeviceProp& prop) {
  char id[32] = {};
  if (cudaDeviceGetPCIBusId(id, sizeof id, ordinal) == cudaSuccess) return cuda_normalise_pci_bus_id(id);
  cudaGetLastError();
  return fmt::format("{:04x}:{:02x}:{:02x}.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
}

}  // namespace

bool cuda_query_device(int ordinal, CudaDeviceInfo& out, std::string& why) {
  cudaDeviceProp prop{};
  if (const cudaError_t err = cudaGetDeviceProperties(&prop, ordinal); err != cudaSuccess) {
    cudaGetLastError();
    why = fmt::format("device {}: cudaGetDeviceProperties failed ({}): {}", ordinal, cuda_error_code(err),
                      cudaGetErrorString(err));
    return false;
  }
  out.ordinal = ordinal;
  out.name = prop.name;
  out.cc_major = prop.major;
  out.cc_minor = prop.minor;
  out.sm_count = prop.multiProcessorCount;
  out.total_memory = prop.totalGlobalMem;
  out.integrated = prop.integrated != 0;
  out.pci_bus_id = pci_bus_id(ordinal, prop);
  out.uuid = cuda_uuid_string(reinterpret_cast<const unsigned char*>(prop.uuid.bytes));
  cudaDriverGetVersion(&out.driver_version);
  cudaRuntimeGetVersion(&out.runtime_version);
  out.warp_size = prop.warpSize;
  out.max_threads_per_block = prop.maxThreadsPerBlock;
  out.max_grid_x = prop.maxGridSize[0];
  out.l2_cache_size = prop.l2CacheSize;
  out.memory_bus_width = prop.memoryBusWidth;
  out.clock_khz = attribute(cudaDevAttrClockRate, ordinal);
  out.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
  out.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
  out.async_engines = prop.asyncEngineCount;
  out.unified_addressing = prop.unifiedAddressing != 0;
  out.memory_pools = prop.memoryPoolsSupported != 0;
  out.ecc_enabled = prop.ECCEnabled != 0;
  return true;
}

std::string cuda_uuid_string(const unsigned char* b) {
  return fmt::format(
      "GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:"
      "02x}",
      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

std::string cuda_normalise_pci_bus_id(const std::string& id) {
  std::string out = to_lower(trim(id));
  // "00000000:65:00.0" (NVML's form) -> "0000:65:00.0".
  const size_t colon = out.find(':');
  if (colon != std::string::npos && colon > 4 && out.find_first_not_of('0') >= colon - 4)
    out.erase(0, colon - 4);
  return out;
}

std::string cuda_version_string(int version) {
  if (version <= 0) return "none";
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

}  // namespace bk
