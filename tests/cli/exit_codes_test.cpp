// SPDX-License-Identifier: MIT
// bkctl documents one exit-code table; library errors must land on the same numbers.

#include "exit_codes.h"

#include <gtest/gtest.h>

#include "bk/error.h"

namespace bkctl {
namespace {

TEST(ExitCodes, LibraryErrorsMapOntoTheDocumentedTable) {
  EXPECT_EQ(bkctl::exit_code_for(bk::ErrorCode::check_failed), kExitCheckFailed);
  EXPECT_EQ(bkctl::exit_code_for(bk::ErrorCode::invalid_argument), kExitUsage);
  EXPECT_EQ(bkctl::exit_code_for(bk::ErrorCode::unsupported), kExitUsage);
  EXPECT_EQ(bkctl::exit_code_for(bk::ErrorCode::not_found), kExitNotFound);
  EXPECT_EQ(bkctl::exit_code_for(bk::ErrorCode::out_of_memory), kExitOutOfMemory);
  EXPECT_EQ(bkctl::exit_code_for(bk::ErrorCode::device_error), kExitDeviceError);
  EXPECT_EQ(bkctl::exit_code_for(bk::ErrorCode::timeout), kExitDeviceError);
}

TEST(ExitCodes, TableValuesAreTheDocumentedNumbers) {
  EXPECT_EQ(kExitOk, 0);
  EXPECT_EQ(kExitCheckFailed, 1);
  EXPECT_EQ(kExitUsage, 2);
  EXPECT_EQ(kExitNotFound, 3);
  EXPECT_EQ(kExitOutOfMemory, 4);
  EXPECT_EQ(kExitDeviceError, 5);
}

}  // namespace
}  // namespace bkctl
