// SPDX-License-Identifier: MIT
#pragma once
// VulkanKernelArgs: the push-constant block every kernel reads (shaders/common.glsl declares
// the same layout). 128 bytes, the minimum maxPushConstantsSize, so it fits every device.
//
// a, b: the sources, d: the destination. ne: elements per dimension; nb: strides in elements
// of the tensor's own dtype (bytes for a quantized one, vulkan_unit_bytes); off: the first
// element, relative to the bound range (binding offsets are rounded down to
// minStorageBufferOffsetAlignment). types packs the dtypes and a
// kernel variant: a | b << 4 | d << 8 | variant << 12. f0, f1, u0, u1: per-kernel parameters,
// documented in each shader.

#include <cstdint>

#include "bk/tensor.h"

namespace bk {

struct VulkanKernelArgs {
  uint32_t ne_a[4]{};
  uint32_t nb_a[4]{};
  uint32_t ne_b[4]{};
  uint32_t nb_b[4]{};
  uint32_t ne_d[4]{};
  uint32_t nb_d[4]{};
  uint32_t off_a = 0;
  uint32_t off_b = 0;
  uint32_t off_d = 0;
  uint32_t types = 0;
  float f0 = 0;
  float f1 = 0;
  uint32_t u0 = 0;
  uint32_t u1 = 0;
};
static_assert(sizeof(VulkanKernelArgs) == 128, "must match shaders/common.glsl and fit 128 bytes");

// The unit of t's offsets and strides in a kernel's arguments: its element, or for a quantized
// dtype a byte, since its blocks (34 bytes for q8_0) need not start at a multiple of the block
// size from where a binding starts, and kernels decode blocks from bytes (shaders/quant.glsl).
inline size_t vulkan_unit_bytes(DType type) noexcept { return is_quantized(type) ? 1 : dtype_size(type); }

// Shapes and strides of t (which supports_op has checked to fit 32 bits).
inline void vulkan_set_layout(uint32_t (&ne)[4], uint32_t (&nb)[4], const Tensor& t) noexcept {
  const size_t esize = vulkan_unit_bytes(t.type);
  for (int i = 0; i < kMaxDims; ++i) {
    ne[i] = static_cast<uint32_t>(t.ne[static_cast<size_t>(i)]);
    nb[i] = static_cast<uint32_t>(t.nb[static_cast<size_t>(i)] / esize);
  }
}

inline uint32_t vulkan_pack_types(DType a, DType b, DType d, uint32_t variant = 0) noexcept {
  return static_cast<uint32_t>(a) | static_cast<uint32_t>(b) << 4 | static_cast<uint32_t>(d) << 8 |
         variant << 12;
}

}  // namespace bk
