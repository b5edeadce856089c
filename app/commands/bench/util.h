// SPDX-License-Identifier: MIT
#pragma once
// Small shared pieces of the bench tests: the guard that turns a device failure into a result
// with status error (or unsupported) instead of an exit. Random inputs come from
// probe/verify/rng.h.

#include <new>

#include "bk/error.h"
#include "commands/bench/cli.h"

namespace bkctl {

template <typename F>
BenchResult guarded(BenchResult& result, F&& body) {
  try {
    body();
  } catch (const bk::Error& e) {
    result.status = e.code() == bk::ErrorCode::unsupported ? BenchStatus::unsupported : BenchStatus::error;
    result.error_code = e.code();
    result.reason = e.what();
    result.stats = {};
  } catch (const std::bad_alloc&) {
    result.status = BenchStatus::error;
    result.error_code = bk::ErrorCode::out_of_memory;
    result.reason = "out of host memory";
    result.stats = {};
  }
  return result;
}

}  // namespace bkctl
