// SPDX-License-Identifier: MIT
#include "bk/error.h"

namespace bk {

const char* error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::check_failed:
      return "check_failed";
    case ErrorCode::invalid_argument:
      return "invalid_argument";
    case ErrorCode::unsupported:
      return "unsupported";
    case ErrorCode::not_found:
      return "not_found";
    case ErrorCode::out_of_memory:
      return "out_of_memory";
    case ErrorCode::device_error:
      return "device_error";
    case ErrorCode::timeout:
      return "timeout";
  }
  return "unknown";
}

}  // namespace bk
