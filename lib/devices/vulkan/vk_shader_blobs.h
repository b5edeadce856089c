// SPDX-License-Identifier: MIT
#pragma once
// The SPIR-V of every compute kernel, compiled by glslc at build time and embedded in the
// plugin (shaders/shaders.cmake generates the definition). Static data: valid for the life of
// the process, safe from any thread.

#include <cstddef>
#include <span>
#include <string_view>

namespace bk {

struct VulkanShaderBlob {
  std::string_view name;  // "add", "mul_mat_f16", ...
  const unsigned char* code;
  size_t size;  // bytes, a multiple of 4
};

std::span<const VulkanShaderBlob> vulkan_shader_blobs() noexcept;

}  // namespace bk
