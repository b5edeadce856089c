// SPDX-License-Identifier: MIT
#pragma once
// VulkanPipelines: the compute pipelines of one logical device, created lazily and cached.
//
// Kernels use one of two descriptor-set layouts, both created with this object: three
// storage buffers (0 = a, 1 = b, 2 = d), or for the texel kernels (vulkan_kernel_reads_texels)
// a and b as R32G32B32A32_SFLOAT uniform texel buffers and d a storage buffer. Each has its
// pipeline layout; both take VulkanKernelArgs as push constants. A
// kernel's VkPipeline is created from its embedded SPIR-V on its first get() and kept until
// the context goes; listing devices or creating a context for transfers compiles nothing.
//
// Owned by VulkanContext. Threading: get() may be called from any thread.

#include <array>
#include <cstddef>
#include <mutex>
#include <string_view>

#include "devices/vulkan/vk_api.h"

namespace bk {

class VulkanContext;

enum class VulkanKernel {
  add,
  mul,
  scale,
  silu,
  gelu,
  rms_norm,
  soft_max,
  rope,
  get_rows,
  cpy,
  copy,      // cpy / cont without a reshape: the element-wise kernel with d = a (copy.comp)
  add_flat,  // the element-wise kernels on same-shape contiguous F32 (elementwise_flat.glsl)
  mul_flat,
  scale_flat,
  silu_flat,
  gelu_flat,
  copy_flat,
  add_texel,  // the flat kernels reading a and b through texel buffers (elementwise_flat.glsl)
  mul_texel,
  scale_texel,
  silu_texel,
  gelu_texel,
  copy_texel,
  mul_mat_f32,
  mul_mat_f16,
  mul_mat_bf16,
  mul_mat_lanes_f32,
  mul_mat_lanes_f16,
  mul_mat_lanes_bf16,
  mul_mat_lanes_sg_f32,  // the lane kernel with activations shared by subgroup shuffles
  mul_mat_lanes_sg_f16,
  mul_mat_lanes_sg_bf16,
  mul_mat_lanes_sg_texel_f32,  // the same, reading a and b through texel buffers
  mul_mat_lanes_sg_texel_f16,
  mul_mat_lanes_sg_texel_bf16,
  // Quantized weights and tables, one kernel per dtype in DType order (q8_0, q4_0, q4_k, q6_k):
  get_rows_q8_0,  // get_rows.comp decoding the table (shaders/quant.glsl)
  get_rows_q4_0,
  get_rows_q4_k,
  get_rows_q6_k,
  mul_mat_q8_0,  // the tiled kernel decoding W as it fills its tiles (GPUs' GEMM)
  mul_mat_q4_0,
  mul_mat_q4_k,
  mul_mat_q6_k,
  mul_vec_q8_0,  // a few columns on GPUs: a workgroup per 4 rows, reduced over K
  mul_vec_q4_0,
  mul_vec_q4_k,
  mul_vec_q6_k,
  mul_mat_quant_q8_0,  // the lane kernel for quantized W (CPU devices), without shuffles
  mul_mat_quant_q4_0,
  mul_mat_quant_q4_k,
  mul_mat_quant_q6_k,
  mul_mat_quant_sg_q8_0,  // the same, activations shared by subgroup shuffles
  mul_mat_quant_sg_q4_0,
  mul_mat_quant_sg_q4_k,
  mul_mat_quant_sg_q6_k,
  mul_mat_quant_sg_texel_q8_0,  // the same, reading W as R32_UINT and x as RGBA32F texels
  mul_mat_quant_sg_texel_q4_0,
  mul_mat_quant_sg_texel_q4_k,
  mul_mat_quant_sg_texel_q6_k,
  peak_fma_f32,  // Backend::run_peak_kernel (vk_peak.h)
  peak_fma_f16,
};
inline constexpr size_t kVulkanKernelCount = static_cast<size_t>(VulkanKernel::peak_fma_f16) + 1;
// The name of the kernel's embedded SPIR-V ("add", "mul_mat_f16").
std::string_view vulkan_kernel_name(VulkanKernel kernel) noexcept;
// The kernel binds a and b as uniform texel buffers (the *_texel kernels, element-wise and
// mul_mat).
bool vulkan_kernel_reads_texels(VulkanKernel kernel) noexcept;

class VulkanPipelines {
 public:
  // Creates the layouts. Throws Error from vk_check naming the device.
  explicit VulkanPipelines(VulkanContext& ctx);
  ~VulkanPipelines();
  VulkanPipelines(const VulkanPipelines&) = delete;
  VulkanPipelines& operator=(const VulkanPipelines&) = delete;

  // The kernel's pipeline, created on first call. Throws Error(device_error) when the driver
  // rejects the shader, Error(not_found) when the plugin lacks its SPIR-V.
  VkPipeline get(VulkanKernel kernel);
  VkPipelineLayout layout(VulkanKernel kernel) const noexcept {
    return vulkan_kernel_reads_texels(kernel) ? texel_layout_ : layout_;
  }
  VkDescriptorSetLayout set_layout(VulkanKernel kernel) const noexcept {
    return vulkan_kernel_reads_texels(kernel) ? texel_set_layout_ : set_layout_;
  }
  // Number of kernel pipelines created so far.
  size_t created() const;
  // The workgroup width `kernel` is created with when its shader takes it as specialization
  // constant 0 (the general element-wise kernels and the row kernels: rms_norm, soft_max,
  // rope), else 0: the width is fixed in the shader. CPU devices (lavapipe) get 8, one SIMD row
  // of llvmpipe: it runs a workgroup's invocations in turn on one thread, so idle invocations
  // and the barriers between them cost time there, and a short row fills 8 but not 128 or 256
  // (docs/performance.md). GPUs get 256 (element-wise), 128 (rms_norm, soft_max) and 64 (rope).
  uint32_t specialized_width(VulkanKernel kernel) const noexcept;

  static constexpr uint32_t kBindings = 3;

 private:
  VkPipeline create(VulkanKernel kernel) const;
  // The set layout with `reads` as bindings 0 and 1's type, and its pipeline layout.
  void create_layouts(VkDescriptorType reads, VkDescriptorSetLayout& set_layout, VkPipelineLayout& layout);

  VulkanContext& ctx_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout texel_set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout texel_layout_ = VK_NULL_HANDLE;
  mutable std::mutex mutex_;
  std::array<VkPipeline, kVulkanKernelCount> pipelines_{};
};

}  // namespace bk
