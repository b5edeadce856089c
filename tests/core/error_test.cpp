// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "bk/error.h"

namespace bk {
namespace {

TEST(Error, CarriesCodeAndMessage) {
  const Error e(ErrorCode::out_of_memory, "CPU: cannot allocate 1.00 GiB");
  EXPECT_EQ(e.code(), ErrorCode::out_of_memory);
  EXPECT_STREQ(e.what(), "CPU: cannot allocate 1.00 GiB");
  EXPECT_STREQ(error_code_name(e.code()), "out_of_memory");
}

}  // namespace
}  // namespace bk
