// SPDX-License-Identifier: MIT
#pragma once
// Reads Linux /proc files independently of the code under test, so tests compare against the
// OS rather than against our own parser.

#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace bk::test {

inline std::optional<std::string> read_proc(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Values (text after the colon, surrounding blanks removed) of every line whose key is `key`.
inline std::vector<std::string> proc_values(const std::string& text, const std::string& key) {
  std::vector<std::string> values;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    k.erase(k.find_last_not_of(" \t") + 1);
    if (k != key) continue;
    std::string v = line.substr(colon + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    v.erase(v.find_last_not_of(" \t\r") + 1);
    values.push_back(v);
  }
  return values;
}

}  // namespace bk::test
