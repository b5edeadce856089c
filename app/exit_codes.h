// SPDX-License-Identifier: MIT
#pragma once
// bkctl's exit codes: one table for every subcommand (documented in the README).
//
//   0  ok
//   1  a check failed (a pattern mismatch, a requirement not met)
//   2  usage or bad input (unknown flag, malformed size, unknown schema)
//   3  device not found or unavailable
//   4  out of memory
//   5  device error or timeout (and anything unexpected)
//
// exit_code_for() maps library errors onto the same numbers.

#include <string>

#include "bk/error.h"

namespace bkctl {

enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,
  kExitUsage = 2,
  kExitNotFound = 3,
  kExitOutOfMemory = 4,
  kExitDeviceError = 5,
};

// The exit code for a library error: check_failed 1; invalid_argument and unsupported 2;
// not_found 3; out_of_memory 4; device_error and timeout 5.
constexpr ExitCode exit_code_for(bk::ErrorCode code) noexcept {
  switch (code) {
    case bk::ErrorCode::check_failed:
      return kExitCheckFailed;
    case bk::ErrorCode::invalid_argument:
      return kExitUsage;
    case bk::ErrorCode::unsupported:
      return kExitUsage;
    case bk::ErrorCode::not_found:
      return kExitNotFound;
    case bk::ErrorCode::out_of_memory:
      return kExitOutOfMemory;
    case bk::ErrorCode::device_error:
      return kExitDeviceError;
    case bk::ErrorCode::timeout:
      return kExitDeviceError;
  }
  return kExitDeviceError;
}

// A usage mistake (exit 2), with a message that says what to give instead.
[[noreturn]] inline void usage_error(const std::string& what) {
  throw bk::Error(bk::ErrorCode::invalid_argument, what);
}

}  // namespace bkctl
