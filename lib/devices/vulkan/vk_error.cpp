// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_error.h"

#include <fmt/format.h>

namespace bk {
namespace {

constexpr const char* kUnknown = "VK_RESULT(unknown)";

const char* hint(VkResult result) noexcept {
  switch (vk_error_code(result)) {
    case ErrorCode::out_of_memory:
      return "free memory on the device or use smaller sizes";
    case ErrorCode::timeout:
      return "the device is hung or overloaded";
    case ErrorCode::not_found:
      return "install a Vulkan driver (ICD) for this device";
    case ErrorCode::unsupported:
      return "the driver lacks a feature bk needs; update the driver";
    default:
      break;
  }
  if (result == VK_ERROR_DEVICE_LOST) {
    return "the GPU was reset or the driver crashed; results are lost, restart the process";
  }
  return "check the driver installation and its logs";
}

}  // namespace

const char* vk_result_name(VkResult result) noexcept {
  switch (result) {
#define BK_VK_RESULT(name) \
  case name:               \
    return #name;
    BK_VK_RESULT(VK_SUCCESS)
    BK_VK_RESULT(VK_NOT_READY)
    BK_VK_RESULT(VK_TIMEOUT)
    BK_VK_RESULT(VK_EVENT_SET)
    BK_VK_RESULT(VK_EVENT_RESET)
    BK_VK_RESULT(VK_INCOMPLETE)
    BK_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    BK_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    BK_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    BK_VK_RESULT(VK_ERROR_DEVICE_LOST)
    BK_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    BK_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    BK_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    BK_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    BK_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    BK_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    BK_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    BK_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    BK_VK_RESULT(VK_ERROR_UNKNOWN)
    BK_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    BK_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    BK_VK_RESULT(VK_ERROR_FRAGMENTATION)
    BK_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    BK_VK_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
#undef BK_VK_RESULT
    default:
      break;
  }
  return kUnknown;
}

ErrorCode vk_error_code(VkResult result) noexcept {
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_FRAGMENTED_POOL:
    case VK_ERROR_FRAGMENTATION:
    case VK_ERROR_TOO_MANY_OBJECTS:
      return ErrorCode::out_of_memory;
    case VK_TIMEOUT:
      return ErrorCode::timeout;
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return ErrorCode::not_found;
    case VK_ERROR_LAYER_NOT_PRESENT:
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_FORMAT_NOT_SUPPORTED:
      return ErrorCode::unsupported;
    default:
      return ErrorCode::device_error;
  }
}

void vk_check(VkResult result, const char* call, std::string_view who, std::string_view detail) {
  if (result >= 0 && result != VK_TIMEOUT) return;
  const std::string known = vk_result_name(result);
  const std::string name = known != kUnknown ? known : fmt::format("VK_RESULT({})", static_cast<int>(result));
  if (detail.empty()) {
    throw Error(vk_error_code(result),
                fmt::format("{}: {} failed with {}; {}", who, call, name, hint(result)));
  }
  throw Error(vk_error_code(result),
              fmt::format("{}: {} failed with {} ({}); {}", who, call, name, detail, hint(result)));
}

}  // namespace bk
