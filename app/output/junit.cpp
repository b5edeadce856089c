// SPDX-License-Identifier: MIT
#include "output/junit.h"

#include <fmt/format.h>

#include <string_view>

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

namespace {

// Length of the well-formed UTF-8 sequence starting at text[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one.
size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  const size_t n = lead >= 0xC2 && lead <= 0xDF   ? 2
                   : lead >= 0xE0 && lead <= 0xEF ? 3
                   : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                  : 0;
  if (n == 0 || i + n > text.size()) return 0;
  const unsigned char low = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
  const unsigned char high = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
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
        if (c >= 0x80) {
          // A document with a byte that is not UTF-8 is not well-formed XML: U+FFFD stands in.
          const size_t n = utf8_sequence_length(text, i);
          if (n == 0) {
            out += "\xEF\xBF\xBD";
          } else {
            out.append(text, i, n);
            i += n - 1;
          }
        } else if (c >= 0x20 || ch == '\t' || ch == '\n' || ch == '\r') {
          out += ch;
        }
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
