// SPDX-License-Identifier: MIT
#pragma once
// thrown_by(f, why): the bk::Error that f throws. When f returns instead, the test fails with
// `why` (what it means that nothing was thrown) and a placeholder error is returned.

#include <gtest/gtest.h>

#include "bk/error.h"

namespace bk::test {

template <class F>
Error thrown_by(F&& f, const char* why) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << why;
  return Error(ErrorCode::check_failed, "(nothing was thrown)");
}

}  // namespace bk::test
