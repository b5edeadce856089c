// SPDX-License-Identifier: MIT
#pragma once
// How each op of core/ops.h runs on the Vulkan device: which kernel, which arguments, which
// grid. Separate from the recorder (vk_dispatch.h), which knows nothing about ops.

#include <cstdint>
#include <string>

#include "bk/tensor.h"
#include "devices/vulkan/vk_api.h"

namespace bk {

class VulkanRecorder;
struct VulkanDeviceInfo;

// Records the dispatches that compute `node`. The node must be supported (see below); views
// and leafs record nothing.
void vulkan_record_node(VulkanRecorder& recorder, const Tensor& node);

// Why the device cannot compute `node`, or empty when it can. Decided from the op, the dtypes
// and the sizes alone (placement is not known yet): every tensor a kernel binds must fit one
// storage-buffer range and 32-bit element indices.
std::string vulkan_unsupported_reason(const VulkanDeviceInfo& info, const std::string& device,
                                      const Tensor& node);

// Rows of `t` one dispatch binds: all of them when t fits one storage binding
// (maxStorageBufferRange: 128 MiB on lavapipe), else as many whole rows as fit, t then being one
// matrix (ne2 = ne3 = 1); 0 when neither fits. mul_mat's weight and get_rows' table larger than
// one binding are taken in blocks of that many rows.
int64_t vulkan_rows_per_binding(const VkPhysicalDeviceLimits& limits, const Tensor& t);

}  // namespace bk
