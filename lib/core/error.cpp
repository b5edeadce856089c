#include "core/error.h"

namespace bk {

int exit_code(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::check_failed: return 1;
    case ErrorCode::invalid_argument: return 2;
    case ErrorCode::unsupported: return 2;
    case ErrorCode::not_found: return 3;
    case ErrorCode::out_of_memory: return 4;
    case ErrorCode::device_error: return 5;
    case ErrorCode::timeout: return 5;
  }
  return 5;
}

const char* error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::check_failed: return "check_failed";
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::unsupported: return "unsupported";
    case ErrorCode::not_found: return "not_found";
    case ErrorCode::out_of_memory: return "out_of_memory";
    case ErrorCode::device_error: return "device_error";
    case ErrorCode::timeout: return "timeout";
  }
  return "unknown";
}

}  // namespace bk
