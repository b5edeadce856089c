// SPDX-License-Identifier: MIT
#pragma once
// Small string helpers shared by every layer.

#include <string>
#include <string_view>
#include <vector>

#include "bk/api.h"

namespace bk {

BK_API bool iequals(std::string_view a, std::string_view b) noexcept;
BK_API std::string to_lower(std::string_view s);
BK_API std::string trim(std::string_view s);
BK_API std::vector<std::string> split(std::string_view s, char sep);  // keeps empty fields
// "1 split", "3 splits", "0 checks": a count with its noun in the right number (the plural is
// the noun plus "s" unless given).
BK_API std::string count_of(size_t n, std::string_view noun, std::string_view plural = {});

}  // namespace bk
