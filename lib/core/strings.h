#pragma once
// Small string helpers shared by every layer.

#include <string>
#include <string_view>
#include <vector>

namespace bk {

bool iequals(std::string_view a, std::string_view b) noexcept;
std::string to_lower(std::string_view s);
std::string trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);  // keeps empty fields

}  // namespace bk
