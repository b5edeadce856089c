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
// bk::exit_code() maps library errors onto the same numbers; tests/cli/exit_codes_test.cpp keeps the
// two in step.

namespace bkctl {

enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,
  kExitUsage = 2,
  kExitNotFound = 3,
  kExitOutOfMemory = 4,
  kExitDeviceError = 5,
};

}  // namespace bkctl
