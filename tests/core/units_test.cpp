// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "bk/units.h"

namespace bk {
namespace {

TEST(Units, ParsesSizesPeopleWrite) {
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("64MiB"), 64ull << 20);
  EXPECT_EQ(parse_size("2GiB"), 2ull << 30);
  EXPECT_EQ(parse_size("1.5G"), 3ull << 29);
  EXPECT_EQ(parse_size("512k"), 512ull << 10);
  EXPECT_EQ(parse_size("3 MB"), 3000000u);
  EXPECT_EQ(parse_size("1gib"), 1ull << 30);
  EXPECT_EQ(parse_size(" 7B "), 7u);
  EXPECT_EQ(parse_size("0"), 0u);
}

TEST(Units, RejectsEverythingElse) {
  for (const char* bad :
       {"", "abc", "-1", "1.5.5", "12XB", "GiB", "1.5", "0.3B", "1e3", "99999999999TiB", "1 G B"}) {
    EXPECT_FALSE(parse_size(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(Units, FormatsBytes) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(64ull << 20), "64.0 MiB");
  EXPECT_EQ(format_bytes(3ull << 29), "1.50 GiB");
  EXPECT_EQ(format_bytes(200ull << 30), "200 GiB");
  EXPECT_EQ(format_rate(12.345e9), "12.35 GB/s");
}

}  // namespace
}  // namespace bk
