#pragma once
// The one error model of bk. Anything a user, a file or a device can cause is reported by
// throwing bk::Error; asserts are kept for programmer errors. Every message names the device,
// the sizes involved and what to do next. ErrorCode values map one-to-one onto bkctl's exit
// codes (see exit_code()).

#include <stdexcept>
#include <string>

namespace bk {

enum class ErrorCode : int {
  check_failed = 1,    // a verification found wrong data or a requirement was not met
  invalid_argument,    // bad input: usage, malformed sizes, shapes, files
  not_found,           // a device, backend or named thing does not exist or is unavailable
  out_of_memory,       // an allocation failed
  device_error,        // a device or driver call failed
  timeout,             // a device did not answer in time
  unsupported,         // the device cannot do what was asked (an op, a dtype, a buffer kind)
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

// bkctl's documented exit code for an error code: 1 check failed, 2 usage or bad input,
// 3 not found or unavailable, 4 out of memory, 5 device error or timeout.
int exit_code(ErrorCode code) noexcept;
const char* error_code_name(ErrorCode code) noexcept;

}  // namespace bk
