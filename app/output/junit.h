// SPDX-License-Identifier: MIT
#pragma once
// JUnit XML reports, in the Ant/Surefire form that Jenkins, GitLab and GitHub Actions reporters
// read, valid against the Jenkins xUnit junit-10.xsd (vendored as tests/cli/junit-10.xsd):
//
//   <testsuites name tests failures errors skipped time>
//     <testsuite name tests failures errors skipped time timestamp hostname>
//       <properties><property name value/>...</properties>
//       <testcase classname name time>[<failure|error|skipped message type>text</...>]
//         <system-out>text</system-out></testcase>
//
// Failed, errored and skipped cases are kept apart (their own elements and counts). Text is
// escaped for XML and characters XML 1.0 cannot hold are dropped. Pure functions.

#include <string>
#include <utility>
#include <vector>

namespace bkctl {

enum class JUnitResult { passed, failure, error, skipped };

struct JUnitCase {
  std::string classname;
  std::string name;
  double seconds = 0;
  JUnitResult result = JUnitResult::passed;
  std::string message;  // the failure/error/skipped element's message attribute
  std::string type;     // ... and its type attribute ("fail", "timeout", ...)
  std::string details;  // its text
  std::string system_out;
};

struct JUnitSuite {
  std::string name;
  std::string timestamp;  // ISO 8601, "2026-12-02T19:30:00"
  std::string hostname;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JUnitCase> cases;
};

std::string render_junit(const std::string& name, const std::vector<JUnitSuite>& suites);

// "&amp;" etc.; drops control characters other than tab, newline and carriage return, and puts
// U+FFFD for each byte that is not part of well-formed UTF-8 (the document must stay well-formed).
std::string xml_escape(const std::string& text);

}  // namespace bkctl
