#pragma once
// How each op of core/ops.h runs on the Vulkan device: which kernel, which arguments, which
// grid. Separate from the recorder (vk_dispatch.h), which knows nothing about ops.

#include <string>

#include "core/tensor.h"

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

}  // namespace bk
