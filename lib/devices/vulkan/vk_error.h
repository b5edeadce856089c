// SPDX-License-Identifier: MIT
#pragma once
// The one place where VkResult becomes bk::Error.
//
// Every Vulkan call that can fail goes through vk_check(), so every message has the same shape:
// "<device>: <call> failed with <VK_ERROR_...>: <detail>; <what to do>".

#include <string_view>

#include "bk/error.h"
#include "devices/vulkan/vk_api.h"

namespace bk {

// "VK_ERROR_DEVICE_LOST"; "VK_RESULT(unknown)" for codes this build does not know.
const char* vk_result_name(VkResult result) noexcept;
// The bk error code for a failed result: out-of-memory results -> out_of_memory, device loss
// and driver failures -> device_error, VK_TIMEOUT -> timeout, missing features -> unsupported,
// no driver -> not_found.
ErrorCode vk_error_code(VkResult result) noexcept;

// Throws bk::Error when `result` is an error code or VK_TIMEOUT; other success codes pass.
// `who` names the device ("Vulkan0") or "Vulkan" before one exists; `detail` says what was
// being done ("allocating 1.00 GiB from heap 0 (...)"), and may be empty.
void vk_check(VkResult result, const char* call, std::string_view who, std::string_view detail = {});

}  // namespace bk
