// SPDX-License-Identifier: MIT
#include "output/junit.h"

#include <fmt/format.h>

namespace bkctl {
namespace {

struct Counts {
  size_t tests = 0;
  size_t failures = 0;
  size_t errors = 0;
  size_t skipped = 0;
  double seconds = 0;

  void add(const JUnitCase& c) {
    ++tests;
    failures += c.result == JUnitResult::failure;
    errors += c.result == JUnitResult::error;
    skipped += c.result == JUnitResult::skipped;
    seconds += c.seconds;
  }
  void add(const Counts& other) {
    tests += other.tests;
    failures += other.failures;
    errors += other.errors;
    skipped += other.skipped;
    seconds += other.seconds;
  }
  // The XSD has no skipped count on <testsuites>, only on <testsuite>.
  std::string attributes(bool with_skipped) const {
    const std::string skips = with_skipped ? fmt::format(" skipped=\"{}\"", skipped) : std::string();
    return fmt::format("tests=\"{}\" failures=\"{}\" errors=\"{}\"{} time=\"{:.3f}\"", tests, failures,
                       errors, skips, seconds);
  }
};

const char* element_of(JUnitResult result) {
  switch (result) {
    case JUnitResult::failure:
      return "failure";
    case JUnitResult::error:
      return "error";
    case JUnitResult::skipped:
      return "skipped";
    case JUnitResult::passed:
      break;
  }
  return nullptr;
}

std::string render_case(const JUnitCase& c) {
  std::string out = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\">\n",
                                xml_escape(c.classname), xml_escape(c.name), c.seconds);
  if (const char* element = element_of(c.result)) {
    out += fmt::format("      <{} message=\"{}\" type=\"{}\">{}</{}>\n", element, xml_escape(c.message),
                       xml_escape(c.type), xml_escape(c.details), element);
  }
  if (!c.system_out.empty())
    out += fmt::format("      <system-out>{}</system-out>\n", xml_escape(c.system_out));
  return out + "    </testcase>\n";
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (c >= 0x20 || ch == '\t' || ch == '\n' || ch == '\r') out += ch;
    }
  }
  return out;
}

std::string render_junit(const std::string& name, const std::vector<JUnitSuite>& suites) {
  Counts total;
  std::string body;
  for (const JUnitSuite& suite : suites) {
    Counts counts;
    for (const JUnitCase& c : suite.cases) counts.add(c);
    total.add(counts);
    body +=
        fmt::format("  <testsuite name=\"{}\" {} timestamp=\"{}\" hostname=\"{}\">\n", xml_escape(suite.name),
                    counts.attributes(true), xml_escape(suite.timestamp), xml_escape(suite.hostname));
    if (!suite.properties.empty()) {
      body += "    <properties>\n";
      for (const auto& [key, value] : suite.properties) {
        body +=
            fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml_escape(key), xml_escape(value));
      }
      body += "    </properties>\n";
    }
    for (const JUnitCase& c : suite.cases) body += render_case(c);
    body += "  </testsuite>\n";
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{}\" {}>\n{}</testsuites>\n",
      xml_escape(name), total.attributes(false), body);
}

}  // namespace bkctl
