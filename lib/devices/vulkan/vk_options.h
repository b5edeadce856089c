#pragma once
// Settings of the Vulkan plugin that tests and diagnosis change through the environment; read
// once when the plugin's reg is created.
//
//   BK_VULKAN_MAX_CHUNK=<size>     cap one device-memory chunk (e.g. 16MiB) below the driver's
//                                  maxMemoryAllocationSize, to exercise chunked buffers
//   BK_VULKAN_FORCE_STAGING=1      treat device memory as not host-visible, so every transfer
//                                  goes through staging buffers and vkCmdCopyBuffer

#include <cstddef>

namespace bk {

struct VulkanOptions {
  size_t max_chunk = 0;  // 0: the driver's limit
  bool force_staging = false;
};

// Throws Error(invalid_argument) naming the variable when a value does not parse.
VulkanOptions vulkan_options_from_env();

}  // namespace bk
