#include <gtest/gtest.h>

#include "core/error.h"

namespace bk {
namespace {

TEST(Error, ExitCodesFollowTheDocumentedTable) {
  EXPECT_EQ(exit_code(ErrorCode::check_failed), 1);
  EXPECT_EQ(exit_code(ErrorCode::invalid_argument), 2);
  EXPECT_EQ(exit_code(ErrorCode::unsupported), 2);
  EXPECT_EQ(exit_code(ErrorCode::not_found), 3);
  EXPECT_EQ(exit_code(ErrorCode::out_of_memory), 4);
  EXPECT_EQ(exit_code(ErrorCode::device_error), 5);
  EXPECT_EQ(exit_code(ErrorCode::timeout), 5);
}

TEST(Error, CarriesCodeAndMessage) {
  const Error e(ErrorCode::out_of_memory, "CPU: cannot allocate 1.00 GiB");
  EXPECT_EQ(e.code(), ErrorCode::out_of_memory);
  EXPECT_STREQ(e.what(), "CPU: cannot allocate 1.00 GiB");
  EXPECT_STREQ(error_code_name(e.code()), "out_of_memory");
}

}  // namespace
}  // namespace bk
