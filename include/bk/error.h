// SPDX-License-Identifier: MIT
#pragma once
// The one error model of bk. Anything a user, a file or a device can cause is reported by
// throwing bk::Error; asserts are kept for programmer errors. Every message names the device,
// the sizes involved and what to do next.

#include <stdexcept>
#include <string>

#include "bk/api.h"

namespace bk {

enum class ErrorCode : int {
  check_failed = 1,  // a verification found wrong data or a requirement was not met
  invalid_argument,  // bad input: usage, malformed sizes, shapes, files
  not_found,         // a device, backend or named thing does not exist or is unavailable
  out_of_memory,     // an allocation failed
  device_error,      // a device or driver call failed
  timeout,           // a device did not answer in time
  unsupported,       // the device cannot do what was asked (an op, a dtype, a buffer kind)
};

class BK_API Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

BK_API const char* error_code_name(ErrorCode code) noexcept;

}  // namespace bk
