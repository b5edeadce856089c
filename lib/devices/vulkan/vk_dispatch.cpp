// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_dispatch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "bk/error.h"
#include "devices/vulkan/vk_buffer.h"
#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_descriptors.h"
#include "devices/vulkan/vk_stream.h"

namespace bk {
namespace {

// Enough workgroups along a row to fill any device; more only add per-group overhead (which
// is large on lavapipe), the kernels stride over the rest.
constexpr uint64_t kMaxRowBlocks = 256;

struct Binding {
  VkDescriptorBufferInfo range{};
  uint32_t first_element = 0;
};

Binding resolve(const VulkanContext& ctx, const Tensor& t) {
  const VulkanBuffer* buffer = vulkan_buffer_of(t.buffer, ctx);
  if (buffer == nullptr || buffer->allocation() == nullptr) {
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: tensor '{}' is not in a buffer of this device; kernels read only {} buffers",
                            ctx.name(), t.label(), ctx.name()));
  }
  const size_t at = buffer->offset_of(t);
  const size_t size = t.nbytes();
  const std::optional<VulkanRange> piece = buffer->allocation()->range(at, size);
  if (!piece) {
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: tensor '{}' ({} bytes at offset {}) crosses a {}-byte memory chunk boundary "
                            "of its buffer; kernels bind one chunk (place it inside one, or raise "
                            "BK_VULKAN_MAX_CHUNK)",
                            ctx.name(), t.label(), size, at, buffer->allocation()->chunk_size()));
  }
  const VkPhysicalDeviceLimits& limits = ctx.info().props.limits;
  const size_t align = std::max<size_t>(limits.minStorageBufferOffsetAlignment, 1);
  const size_t base = piece->offset / align * align;
  const size_t lead = piece->offset - base;
  const size_t chunk_size = piece->chunk->size();
  const size_t range = std::min((lead + size + 3) / 4 * 4, chunk_size - base);
  if (range > limits.maxStorageBufferRange) {
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: tensor '{}' needs a {}-byte storage binding, above the device's "
                            "maxStorageBufferRange of {}",
                            ctx.name(), t.label(), range, limits.maxStorageBufferRange));
  }
  Binding b;
  b.range = {piece->chunk->buffer(), base, range};
  b.first_element = static_cast<uint32_t>(lead / vulkan_unit_bytes(t.type));
  return b;
}

struct TexelBinding {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize range = 0;
  VkFormat format = VK_FORMAT_UNDEFINED;
  uint32_t first_element = 0;  // in elements, like Binding's
};

// The four-element texel format t's dtype reads through, where the device has it; quantized
// data reads as 32-bit words (shaders/quant.glsl).
VkFormat texel_format(const VulkanContext& ctx, DType type) noexcept {
  const VulkanDeviceInfo& info = ctx.info();
  if (type == DType::F32 && info.texel_rgba32f) return VK_FORMAT_R32G32B32A32_SFLOAT;
  if (type == DType::F16 && info.texel_rgba16f) return VK_FORMAT_R16G16B16A16_SFLOAT;
  if (type == DType::BF16 && info.texel_rgba16ui) return VK_FORMAT_R16G16B16A16_UINT;
  if (is_quantized(type) && info.texel_r32ui) return VK_FORMAT_R32_UINT;
  return VK_FORMAT_UNDEFINED;
}

// How t binds as a texel view, or nothing when it cannot (see texel_bindable).
std::optional<TexelBinding> texel_binding(const VulkanContext& ctx, const Tensor& t) noexcept {
  const VkFormat format = texel_format(ctx, t.type);
  if (format == VK_FORMAT_UNDEFINED || !ctx.options().texel_reads) return std::nullopt;
  // Quantized data: words, from any byte (its offsets are bytes, which the kernel splits), the
  // last one whole.
  const bool words = is_quantized(t.type);
  const size_t texel_bytes = words ? 4 : 4 * dtype_size(t.type);
  const VulkanBuffer* buffer = vulkan_buffer_of(t.buffer, ctx);
  if (buffer == nullptr || buffer->allocation() == nullptr || (!words && t.nbytes() % texel_bytes != 0))
    return std::nullopt;
  const std::optional<VulkanRange> piece = buffer->allocation()->range(buffer->offset_of(t), t.nbytes());
  if (!piece) return std::nullopt;
  const VkPhysicalDeviceLimits& limits = ctx.info().props.limits;
  const size_t align = std::max<size_t>(limits.minTexelBufferOffsetAlignment, 1);
  const size_t base = piece->offset / align * align;
  const size_t lead = piece->offset - base;
  const size_t range = (lead + t.nbytes() + texel_bytes - 1) / texel_bytes * texel_bytes;
  if ((!words && lead % texel_bytes != 0) || range > piece->chunk->size() - base ||
      range / texel_bytes > limits.maxTexelBufferElements) {
    return std::nullopt;
  }
  return TexelBinding{piece->chunk->buffer(), base, range, format,
                      static_cast<uint32_t>(lead / vulkan_unit_bytes(t.type))};
}

// How one read operand (a or b) binds: a storage range, or for texel kernels a texel view
// (storage.first_element is then the tensor's first float in the view).
struct Read {
  Binding storage;
  VkBufferView view = VK_NULL_HANDLE;
};

Read bind_read(const VulkanContext& ctx, VulkanDescriptorArena& descriptors, VulkanKernel kernel,
               const Tensor& t) {
  Read read;
  if (!vulkan_kernel_reads_texels(kernel)) {
    read.storage = resolve(ctx, t);
    return read;
  }
  const std::optional<TexelBinding> texel = texel_binding(ctx, t);
  if (!texel) {
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: kernel '{}' reads tensor '{}' as texels, which it cannot bind", ctx.name(),
                            vulkan_kernel_name(kernel), t.label()));
  }
  read.view = descriptors.texel_view(texel->buffer, texel->offset, texel->range, texel->format);
  read.storage.first_element = texel->first_element;
  return read;
}

}  // namespace

bool VulkanRecorder::texel_bindable(const Tensor& t) const noexcept {
  return texel_binding(ctx_, t).has_value();
}

VulkanRecorder::VulkanRecorder(VulkanContext& ctx, VulkanStream& stream, VulkanDescriptorArena& descriptors)
    : ctx_(ctx), stream_(stream), descriptors_(descriptors), pipelines_(ctx.pipelines()) {}

VkDescriptorSet VulkanRecorder::bind(VulkanKernel kernel, VulkanKernelArgs& args, const VulkanOperands& ops) {
  const Read a = bind_read(ctx_, descriptors_, kernel, *ops.a);
  const Read b = ops.b != nullptr ? bind_read(ctx_, descriptors_, kernel, *ops.b) : a;  // unary: b is a again
  const Binding d = resolve(ctx_, *ops.d);
  args.off_a += a.storage.first_element;
  args.off_b += b.storage.first_element;
  args.off_d += d.first_element;

  const VkPipeline pipeline = pipelines_.get(kernel);
  const VkDescriptorSet set = descriptors_.allocate(pipelines_.set_layout(kernel));
  const std::array<const Binding*, VulkanPipelines::kBindings> all{&a.storage, &b.storage, &d};
  const std::array<const VkBufferView*, 2> views{&a.view, &b.view};
  std::array<VkWriteDescriptorSet, VulkanPipelines::kBindings> writes{};
  for (uint32_t i = 0; i < VulkanPipelines::kBindings; ++i) {
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    if (i < 2 && *views[i] != VK_NULL_HANDLE) {
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
      writes[i].pTexelBufferView = views[i];
    } else {
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &all[i]->range;
    }
  }
  ctx_.fn().vkUpdateDescriptorSets(ctx_.device(), VulkanPipelines::kBindings, writes.data(), 0, nullptr);

  VkCommandBuffer cb = stream_.commands();
  ctx_.fn().vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  ctx_.fn().vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines_.layout(kernel), 0, 1, &set,
                                    0, nullptr);
  layout_ = pipelines_.layout(kernel);
  return set;
}

void VulkanRecorder::push_and_dispatch(const VulkanKernelArgs& args, uint32_t x, uint32_t y, uint32_t z) {
  VkCommandBuffer cb = stream_.commands();
  ctx_.fn().vkCmdPushConstants(cb, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(args), &args);
  ctx_.fn().vkCmdDispatch(cb, x, y, z);
}

void VulkanRecorder::dispatch_items(VulkanKernel kernel, VulkanKernelArgs args, const VulkanOperands& ops,
                                    uint64_t items, uint32_t per_group) {
  if (items == 0) return;
  const uint64_t groups = (items + per_group - 1) / per_group;
  const uint32_t* limit = ctx_.info().props.limits.maxComputeWorkGroupCount;
  const uint64_t x = std::min<uint64_t>(groups, limit[0]);
  const uint64_t y = (groups + x - 1) / x;
  if (y > limit[1]) {
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: kernel '{}' needs {} workgroups, more than the device's {} x {}",
                            ctx_.name(), vulkan_kernel_name(kernel), groups, limit[0], limit[1]));
  }
  bind(kernel, args, ops);
  push_and_dispatch(args, static_cast<uint32_t>(x), static_cast<uint32_t>(y), 1);
  stream_.barrier();
}

void VulkanRecorder::dispatch_rows(VulkanKernel kernel, VulkanKernelArgs args, const VulkanOperands& ops,
                                   uint64_t row_length, uint64_t rows, uint32_t per_group) {
  if (row_length == 0 || rows == 0) return;
  const uint32_t* limit = ctx_.info().props.limits.maxComputeWorkGroupCount;
  const uint64_t x = std::min<uint64_t>({(row_length + per_group - 1) / per_group, limit[0], kMaxRowBlocks});
  const uint64_t y = std::min<uint64_t>(rows, limit[1]);
  const uint64_t z = (rows + y - 1) / y;
  if (z > limit[2]) {
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: kernel '{}' over {} rows needs more workgroups than the device's {} x {}",
                            ctx_.name(), vulkan_kernel_name(kernel), rows, limit[1], limit[2]));
  }
  bind(kernel, args, ops);
  push_and_dispatch(args, static_cast<uint32_t>(x), static_cast<uint32_t>(y), static_cast<uint32_t>(z));
  stream_.barrier();
}

void VulkanRecorder::dispatch_tiles(VulkanKernel kernel, VulkanKernelArgs args, const VulkanOperands& ops,
                                    std::array<uint32_t, 3> groups) {
  if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return;
  bind(kernel, args, ops);
  const uint32_t* limit = ctx_.info().props.limits.maxComputeWorkGroupCount;
  for (uint32_t z = 0; z < groups[2]; z += limit[2]) {
    for (uint32_t y = 0; y < groups[1]; y += limit[1]) {
      for (uint32_t x = 0; x < groups[0]; x += limit[0]) {
        args.u0 = x;
        args.u1 = y;
        std::memcpy(&args.f1, &z, sizeof(z));
        push_and_dispatch(args, std::min(limit[0], groups[0] - x), std::min(limit[1], groups[1] - y),
                          std::min(limit[2], groups[2] - z));
      }
    }
  }
  stream_.barrier();
}

}  // namespace bk
