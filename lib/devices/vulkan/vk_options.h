// SPDX-License-Identifier: MIT
#pragma once
// Settings of the Vulkan plugin that tests and diagnosis change through the environment; read
// once when the plugin's reg is created.
//
//   BK_VULKAN_MAX_CHUNK=<size>     cap one device-memory chunk (e.g. 16MiB) below the driver's
//                                  maxMemoryAllocationSize, to exercise chunked buffers
//   BK_VULKAN_FORCE_STAGING=1      treat device memory as not host-visible, so every transfer
//                                  goes through staging buffers and vkCmdCopyBuffer
//   BK_VULKAN_MUL_MAT=tiled|lanes|lanes-plain
//                                  force one mul_mat kernel (default: lanes on CPU devices such
//                                  as lavapipe, tiled through shared memory on GPUs), so each
//                                  is testable on one machine; lanes-plain is the lane kernel
//                                  without subgroup shuffles (what devices without them get)
//   BK_VULKAN_TEXEL=0|1            0: the flat element-wise kernels read their operands as
//                                  storage buffers even where the device has the texel-buffer
//                                  path (default 1), so both paths are testable on one device

#include <cstddef>

namespace bk {

enum class VulkanMulMatKernel { automatic, tiled, lanes, lanes_plain };

struct VulkanOptions {
  size_t max_chunk = 0;  // 0: the driver's limit
  bool force_staging = false;
  VulkanMulMatKernel mul_mat = VulkanMulMatKernel::automatic;
  bool texel_reads = true;
};

// Throws Error(invalid_argument) naming the variable when a value does not parse.
VulkanOptions vulkan_options_from_env();

}  // namespace bk
