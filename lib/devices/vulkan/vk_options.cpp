// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_options.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "bk/error.h"
#include "bk/units.h"

namespace bk {
namespace {

constexpr size_t kMinChunk = 4096;

// A 0|1 switch: `fallback` when unset or empty. Throws Error(invalid_argument) naming it otherwise.
bool switch_from_env(const char* name, bool fallback) {
  const char* raw = std::getenv(name);
  if (raw == nullptr || *raw == '\0') return fallback;
  const std::string value = raw;
  if (value != "0" && value != "1") {
    throw Error(ErrorCode::invalid_argument, fmt::format("{}='{}' must be 0 or 1", name, value));
  }
  return value == "1";
}

}  // namespace

VulkanOptions vulkan_options_from_env() {
  VulkanOptions options;
  if (const char* chunk = std::getenv("BK_VULKAN_MAX_CHUNK"); chunk != nullptr && *chunk != '\0') {
    const auto size = parse_size(chunk);
    if (!size || *size < kMinChunk) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("BK_VULKAN_MAX_CHUNK='{}' is not a size of at least {} bytes (e.g. 16MiB)",
                              chunk, kMinChunk));
    }
    options.max_chunk = *size;
  }
  options.force_staging = switch_from_env("BK_VULKAN_FORCE_STAGING", options.force_staging);
  options.texel_reads = switch_from_env("BK_VULKAN_TEXEL", options.texel_reads);
  if (const char* mm = std::getenv("BK_VULKAN_MUL_MAT"); mm != nullptr && *mm != '\0') {
    const std::string value = mm;
    if (value == "tiled") {
      options.mul_mat = VulkanMulMatKernel::tiled;
    } else if (value == "lanes") {
      options.mul_mat = VulkanMulMatKernel::lanes;
    } else if (value == "lanes-plain") {
      options.mul_mat = VulkanMulMatKernel::lanes_plain;
    } else {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("BK_VULKAN_MUL_MAT='{}' must be 'tiled', 'lanes' or 'lanes-plain'", value));
    }
  }
  return options;
}

}  // namespace bk
