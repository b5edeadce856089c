// SPDX-License-Identifier: MIT
// "Did you mean": typos find their word, unrelated words find none.

#include <gtest/gtest.h>

#include "suggest.h"

namespace bkctl {
namespace {

const std::vector<std::string> kCommands = {"devices", "alloc", "schema", "sched", "ops", "bench", "smoke"};

TEST(Suggest, TyposFindTheirWord) {
  EXPECT_EQ(nearest_word("devcies", kCommands), "devices");  // two letters swapped
  EXPECT_EQ(nearest_word("devce", kCommands), "devices");    // two letters missing
  EXPECT_EQ(nearest_word("SMOKE", kCommands), "smoke");      // case
  EXPECT_EQ(nearest_word("sched", kCommands), "sched");
  EXPECT_EQ(nearest_word("--devcie", {"--device", "--devices", "-d"}), "--device");
}

TEST(Suggest, UnrelatedWordsFindNone) {
  EXPECT_EQ(nearest_word("frobnicate", kCommands), "");
  EXPECT_EQ(nearest_word("opx", {"ops"}), "ops") << "one edit in a short word";
  EXPECT_EQ(nearest_word("abc", {"ops"}), "") << "short words allow one edit only";
  EXPECT_EQ(did_you_mean("frobnicate", kCommands), "");
  EXPECT_EQ(did_you_mean("smok", kCommands), "; did you mean 'smoke'?");
}

}  // namespace
}  // namespace bkctl
