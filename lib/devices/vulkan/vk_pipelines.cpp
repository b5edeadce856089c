// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_pipelines.h"

#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "bk/error.h"
#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_error.h"
#include "devices/vulkan/vk_kernel_args.h"
#include "devices/vulkan/vk_shader_blobs.h"

namespace bk {
namespace {

constexpr std::array<std::string_view, kVulkanKernelCount> kNames{
    "add",
    "mul",
    "scale",
    "silu",
    "gelu",
    "rms_norm",
    "soft_max",
    "rope",
    "get_rows",
    "cpy",
    "copy",
    "add_flat",
    "mul_flat",
    "scale_flat",
    "silu_flat",
    "gelu_flat",
    "copy_flat",
    "add_texel",
    "mul_texel",
    "scale_texel",
    "silu_texel",
    "gelu_texel",
    "copy_texel",
    "mul_mat_f32",
    "mul_mat_f16",
    "mul_mat_bf16",
    "mul_mat_lanes_f32",
    "mul_mat_lanes_f16",
    "mul_mat_lanes_bf16",
    "mul_mat_lanes_sg_f32",
    "mul_mat_lanes_sg_f16",
    "mul_mat_lanes_sg_bf16",
    "mul_mat_lanes_sg_texel_f32",
    "mul_mat_lanes_sg_texel_f16",
    "mul_mat_lanes_sg_texel_bf16",
    "get_rows_q8_0",
    "get_rows_q4_0",
    "get_rows_q4_k",
    "get_rows_q6_k",
    "mul_mat_q8_0",
    "mul_mat_q4_0",
    "mul_mat_q4_k",
    "mul_mat_q6_k",
    "mul_vec_q8_0",
    "mul_vec_q4_0",
    "mul_vec_q4_k",
    "mul_vec_q6_k",
    "mul_mat_quant_q8_0",
    "mul_mat_quant_q4_0",
    "mul_mat_quant_q4_k",
    "mul_mat_quant_q6_k",
    "mul_mat_quant_sg_q8_0",
    "mul_mat_quant_sg_q4_0",
    "mul_mat_quant_sg_q4_k",
    "mul_mat_quant_sg_q6_k",
    "mul_mat_quant_sg_texel_q8_0",
    "mul_mat_quant_sg_texel_q4_0",
    "mul_mat_quant_sg_texel_q4_k",
    "mul_mat_quant_sg_texel_q6_k",
    "peak_fma_f32",
    "peak_fma_f16",
};

// SPIR-V words must be 4-byte aligned: copy the embedded bytes rather than alias them.
std::vector<uint32_t> spirv_words(VulkanKernel kernel) {
  const std::string_view name = vulkan_kernel_name(kernel);
  for (const VulkanShaderBlob& blob : vulkan_shader_blobs()) {
    if (blob.name != name) continue;
    std::vector<uint32_t> words(blob.size / 4);
    std::memcpy(words.data(), blob.code, words.size() * 4);
    return words;
  }
  throw Error(ErrorCode::not_found,
              fmt::format("the Vulkan plugin was built without the SPIR-V of kernel '{}'; rebuild it", name));
}

}  // namespace

std::string_view vulkan_kernel_name(VulkanKernel kernel) noexcept {
  return kNames[static_cast<size_t>(kernel)];
}

bool vulkan_kernel_reads_texels(VulkanKernel kernel) noexcept {
  return (kernel >= VulkanKernel::add_texel && kernel <= VulkanKernel::copy_texel) ||
         (kernel >= VulkanKernel::mul_mat_lanes_sg_texel_f32 &&
          kernel <= VulkanKernel::mul_mat_lanes_sg_texel_bf16) ||
         (kernel >= VulkanKernel::mul_mat_quant_sg_texel_q8_0 &&
          kernel <= VulkanKernel::mul_mat_quant_sg_texel_q6_k);
}

VulkanPipelines::VulkanPipelines(VulkanContext& ctx) : ctx_(ctx) {
  create_layouts(VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, set_layout_, layout_);
  try {
    create_layouts(VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, texel_set_layout_, texel_layout_);
  } catch (...) {
    ctx.fn().vkDestroyPipelineLayout(ctx.device(), layout_, nullptr);
    ctx.fn().vkDestroyDescriptorSetLayout(ctx.device(), set_layout_, nullptr);
    throw;
  }
}

void VulkanPipelines::create_layouts(VkDescriptorType reads, VkDescriptorSetLayout& set_layout,
                                     VkPipelineLayout& layout) {
  std::array<VkDescriptorSetLayoutBinding, kBindings> bindings{};
  for (uint32_t i = 0; i < kBindings; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = i < 2 ? reads : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set{};
  set.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set.bindingCount = kBindings;
  set.pBindings = bindings.data();
  vk_check(ctx_.fn().vkCreateDescriptorSetLayout(ctx_.device(), &set, nullptr, &set_layout),
           "vkCreateDescriptorSetLayout", ctx_.name());

  VkPushConstantRange push{};
  push.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  push.size = sizeof(VulkanKernelArgs);
  VkPipelineLayoutCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  info.setLayoutCount = 1;
  info.pSetLayouts = &set_layout;
  info.pushConstantRangeCount = 1;
  info.pPushConstantRanges = &push;
  const VkResult result = ctx_.fn().vkCreatePipelineLayout(ctx_.device(), &info, nullptr, &layout);
  if (result != VK_SUCCESS) ctx_.fn().vkDestroyDescriptorSetLayout(ctx_.device(), set_layout, nullptr);
  vk_check(result, "vkCreatePipelineLayout", ctx_.name());
}

VulkanPipelines::~VulkanPipelines() {
  for (VkPipeline p : pipelines_) {
    if (p != VK_NULL_HANDLE) ctx_.fn().vkDestroyPipeline(ctx_.device(), p, nullptr);
  }
  ctx_.fn().vkDestroyPipelineLayout(ctx_.device(), texel_layout_, nullptr);
  ctx_.fn().vkDestroyDescriptorSetLayout(ctx_.device(), texel_set_layout_, nullptr);
  ctx_.fn().vkDestroyPipelineLayout(ctx_.device(), layout_, nullptr);
  ctx_.fn().vkDestroyDescriptorSetLayout(ctx_.device(), set_layout_, nullptr);
}

VkPipeline VulkanPipelines::get(VulkanKernel kernel) {
  std::lock_guard lock(mutex_);
  VkPipeline& slot = pipelines_[static_cast<size_t>(kernel)];
  if (slot == VK_NULL_HANDLE) slot = create(kernel);
  return slot;
}

size_t VulkanPipelines::created() const {
  std::lock_guard lock(mutex_);
  size_t n = 0;
  for (VkPipeline p : pipelines_) n += p != VK_NULL_HANDLE ? 1 : 0;
  return n;
}

uint32_t VulkanPipelines::specialized_width(VulkanKernel kernel) const noexcept {
  const bool cpu = ctx_.info().is_cpu();
  switch (kernel) {
    case VulkanKernel::add:
    case VulkanKernel::mul:
    case VulkanKernel::scale:
    case VulkanKernel::silu:
    case VulkanKernel::gelu:
    case VulkanKernel::copy:
      return cpu ? 8 : 256;
    case VulkanKernel::rms_norm:
    case VulkanKernel::soft_max:
      return cpu ? 8 : 128;
    case VulkanKernel::rope:  // an invocation per pair: a 128-wide head has 64
      return cpu ? 8 : 64;
    default:
      return 0;
  }
}

VkPipeline VulkanPipelines::create(VulkanKernel kernel) const {
  const std::vector<uint32_t> words = spirv_words(kernel);
  const std::string what = fmt::format("kernel '{}'", vulkan_kernel_name(kernel));
  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = words.size() * 4;
  module_info.pCode = words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  vk_check(ctx_.fn().vkCreateShaderModule(ctx_.device(), &module_info, nullptr, &module),
           "vkCreateShaderModule", ctx_.name(), what);

  VkComputePipelineCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  const uint32_t width = specialized_width(kernel);
  const VkSpecializationMapEntry width_entry{0, 0, sizeof(width)};
  const VkSpecializationInfo specialization{1, &width_entry, sizeof(width), &width};
  if (width != 0) info.stage.pSpecializationInfo = &specialization;
  info.layout = layout(kernel);
  VkPipeline pipeline = VK_NULL_HANDLE;
  const VkResult result =
      ctx_.fn().vkCreateComputePipelines(ctx_.device(), VK_NULL_HANDLE, 1, &info, nullptr, &pipeline);
  ctx_.fn().vkDestroyShaderModule(ctx_.device(), module, nullptr);
  vk_check(result, "vkCreateComputePipelines", ctx_.name(), what);
  return pipeline;
}

}  // namespace bk
