// SPDX-License-Identifier: MIT
#pragma once
// Asserts that a builder throws bk::Error(invalid_argument) whose message names what it should.

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "bk/error.h"

namespace bk::test {

template <typename F>
void expect_invalid(F&& build, std::initializer_list<std::string> must_mention) {
  try {
    build();
    ADD_FAILURE() << "expected Error(invalid_argument), nothing was thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
    const std::string message = e.what();
    for (const std::string& part : must_mention) {
      EXPECT_NE(message.find(part), std::string::npos) << "message lacks \"" << part << "\": " << message;
    }
  }
}

}  // namespace bk::test
