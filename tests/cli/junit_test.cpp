// SPDX-License-Identifier: MIT
// The JUnit XML writer (app/output/junit.h): counts kept apart per result, escaping, structure.
// tests/cli/test_smoke.py validates real reports against the vendored junit-10.xsd with xmllint.
#include <gtest/gtest.h>

#include "output/junit.h"

namespace bkctl {
namespace {

TEST(JUnit, EscapesMarkupAndDropsControlCharacters) {
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(xml_escape(std::string("x\x01y\tz\n", 6)), "xy\tz\n");
}

TEST(JUnit, BytesThatAreNotUtf8BecomeTheReplacementCharacter) {
  // Valid two-, three- and four-byte sequences pass; a lone continuation byte, a truncated
  // sequence, an overlong form and a surrogate do not.
  EXPECT_EQ(xml_escape("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  EXPECT_EQ(xml_escape("a\x80z"), "a\xef\xbf\xbdz");
  EXPECT_EQ(xml_escape("\xe2\x82"), "\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(xml_escape("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(xml_escape("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(JUnit, CountsFailuresErrorsAndSkipsApart) {
  JUnitSuite suite{"CPU", "2026-01-01T00:00:00", "host", {{"type", "cpu"}}, {}};
  suite.cases.push_back({"bkctl.smoke.CPU", "memory", 0.5, JUnitResult::passed, "", "", "", "bytes=8"});
  suite.cases.push_back(
      {"bkctl.smoke.CPU", "events", 0, JUnitResult::skipped, "no events", "skipped", "", ""});
  suite.cases.push_back({"bkctl.smoke.CPU", "matmul", 1, JUnitResult::failure, "slow", "fail", "slow", ""});
  suite.cases.push_back({"bkctl.smoke.CPU", "hang", 2, JUnitResult::error, "timed out", "timeout", "", ""});
  const std::string xml = render_junit("bkctl smoke", {suite});
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0), 0u);
  EXPECT_NE(
      xml.find("<testsuites name=\"bkctl smoke\" tests=\"4\" failures=\"1\" errors=\"1\" time=\"3.500\">"),
      std::string::npos)
      << xml;
  EXPECT_NE(xml.find("tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\" time=\"3.500\" timestamp="),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<skipped message=\"no events\" type=\"skipped\"></skipped>"), std::string::npos);
  EXPECT_NE(xml.find("<failure message=\"slow\" type=\"fail\">slow</failure>"), std::string::npos);
  EXPECT_NE(xml.find("<error message=\"timed out\" type=\"timeout\"></error>"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"type\" value=\"cpu\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<system-out>bytes=8</system-out>"), std::string::npos);
}

}  // namespace
}  // namespace bkctl
