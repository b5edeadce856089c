// SPDX-License-Identifier: MIT
#pragma once
// What the CUDA runtime says about one GPU, queried once when the plugin lists devices.
//
// cudaGetDeviceProperties and cudaDeviceGetAttribute do not create a context, so listing stays
// cheap; nothing here allocates device memory.

#include <cstddef>
#include <string>

namespace bk {

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;  // "NVIDIA H200"
  int cc_major = 0;  // compute capability
  int cc_minor = 0;
  int sm_count = 0;
  size_t total_memory = 0;
  bool integrated = false;  // shares system memory (Jetson, GH200's C2C is not this)
  std::string pci_bus_id;   // "0000:65:00.0", lowercase, the form the Vulkan plugin uses
  std::string uuid;         // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it
  int driver_version = 0;   // CUDA version the driver supports: 13000 for 13.0
  int runtime_version = 0;  // the runtime this plugin was linked with
  int warp_size = 0;
  int max_threads_per_block = 0;
  int max_grid_x = 0;
  int l2_cache_size = 0;
  int memory_bus_width = 0;  // bits
  int clock_khz = 0;         // peak SM clock, 0 when the runtime does not say
  int memory_clock_khz = 0;  // peak memory clock, 0 when the runtime does not say
  size_t shared_memory_per_block_optin = 0;
  int async_engines = 0;
  bool unified_addressing = false;
  bool memory_pools = false;  // cudaMallocAsync works
  bool ecc_enabled = false;
};

// Fills `out` for device `ordinal`; false with the reason in `why` when the runtime refuses.
bool cuda_query_device(int ordinal, CudaDeviceInfo& out, std::string& why);

// 16 raw bytes as "GPU-" + 8-4-4-4-12 lowercase hex digits.
std::string cuda_uuid_string(const unsigned char* bytes);
// "0000:65:00.0" from what cudaDeviceGetPCIBusId writes (which may be upper case, and may carry
// an 8-digit domain): lowercase, 4-digit domain.
std::string cuda_normalise_pci_bus_id(const std::string& id);
// 13000 -> "13.0", 12040 -> "12.4"; "none" for 0.
std::string cuda_version_string(int version);

}  // namespace bk
