// SPDX-License-Identifier: MIT
#pragma once
// VulkanRecorder: records kernel dispatches on a stream, for one compute() call.
//
// It resolves each tensor to a descriptor range: the chunk holding it, a binding offset
// rounded down to minStorageBufferOffsetAlignment, and the tensor's first element relative to
// that offset (written into the kernel's arguments). A tensor outside this device's buffers,
// crossing a chunk boundary or needing a range above maxStorageBufferRange is
// Error(unsupported) naming it. Grids larger than maxComputeWorkGroupCount are split into
// several dispatches (tiles) or laid out in two dimensions (elements, rows). Every dispatch
// is followed by a barrier, so each node sees the writes of the nodes before it.
//
// Texel kernels (vulkan_kernel_reads_texels) bind a and b through four-element texel views
// instead (R32G32B32A32_SFLOAT for F32, R16G16B16A16_SFLOAT for F16, R16G16B16A16_UINT for
// BF16): the view starts at the tensor's offset rounded down to
// minTexelBufferOffsetAlignment, and texel_bindable() says whether that fits (the device has
// the format and the option allows it, the tensor starts a whole texel after the view and
// spans at most maxTexelBufferElements texels); callers pick the storage kernel otherwise.
//
// Threading: as the stream (one thread at a time).

#include <array>
#include <cstdint>

#include "bk/tensor.h"
#include "devices/vulkan/vk_api.h"
#include "devices/vulkan/vk_kernel_args.h"
#include "devices/vulkan/vk_pipelines.h"

namespace bk {

class VulkanContext;
class VulkanDescriptorArena;
class VulkanStream;

// The tensors a kernel binds: a (binding 0), b (binding 1; a again when null), d (binding 2).
struct VulkanOperands {
  const Tensor* a = nullptr;
  const Tensor* b = nullptr;
  const Tensor* d = nullptr;
};

class VulkanRecorder {
 public:
  VulkanRecorder(VulkanContext& ctx, VulkanStream& stream, VulkanDescriptorArena& descriptors);

  const VulkanContext& context() const noexcept { return ctx_; }
  // VulkanPipelines::specialized_width of the kernel on this device.
  uint32_t specialized_width(VulkanKernel kernel) const noexcept {
    return pipelines_.specialized_width(kernel);
  }
  // t (a whole number of four-element texels) can be a texel kernel's a or b. Throws nothing.
  bool texel_bindable(const Tensor& t) const noexcept;

  // `items` work items, `per_group` of them per workgroup (1 for kernels that give each
  // workgroup one row), workgroups laid out over a 2-D grid.
  void dispatch_items(VulkanKernel kernel, VulkanKernelArgs args, const VulkanOperands& ops, uint64_t items,
                      uint32_t per_group);
  // Rows of `row_length` items: x = blocks of `per_group` along a row (at most the device
  // limit; kernels stride over longer rows), y and z = the rows.
  void dispatch_rows(VulkanKernel kernel, VulkanKernelArgs args, const VulkanOperands& ops,
                     uint64_t row_length, uint64_t rows, uint32_t per_group);
  // A 3-D grid of groups; dimensions above the device limit are split into several dispatches
  // whose group offsets go to args.u0 (x), args.u1 (y) and the bits of args.f1 (z).
  void dispatch_tiles(VulkanKernel kernel, VulkanKernelArgs args, const VulkanOperands& ops,
                      std::array<uint32_t, 3> groups);

 private:
  VkDescriptorSet bind(VulkanKernel kernel, VulkanKernelArgs& args, const VulkanOperands& ops);
  void push_and_dispatch(const VulkanKernelArgs& args, uint32_t x, uint32_t y, uint32_t z);

  VulkanContext& ctx_;
  VulkanStream& stream_;
  VulkanDescriptorArena& descriptors_;
  VulkanPipelines& pipelines_;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;  // of the kernel bind() bound last (push constants)
};

}  // namespace bk
