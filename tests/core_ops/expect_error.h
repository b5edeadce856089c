// SPDX-License-Identifier: MIT
#pragma once
// Asserts that a call throws bk::Error with the expected code and a message that names what it
// should.

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "bk/error.h"

namespace bk::test {

template <typename F>
void expect_code(ErrorCode code, F&& call, std::initializer_list<std::string> must_mention) {
  try {
    call();
    ADD_FAILURE() << "expected Error(" << error_code_name(code) << "), nothing was thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    const std::string message = e.what();
    for (const std::string& part : must_mention) {
      EXPECT_NE(message.find(part), std::string::npos) << "message lacks \"" << part << "\": " << message;
    }
  }
}

template <typename F>
void expect_invalid(F&& build, std::initializer_list<std::string> must_mention) {
  expect_code(ErrorCode::invalid_argument, std::forward<F>(build), must_mention);
}

}  // namespace bk::test
