// SPDX-License-Identifier: MIT
#pragma once
// Byte sizes as people write them.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bk/api.h"

namespace bk {

// Parses "4096", "64MiB", "2GiB", "1.5G", "512k", "3 MB". Binary suffixes (Ki, Mi, Gi, Ti, with or
// without a trailing B, and the single letters K, M, G, T) mean powers of 1024; decimal ones
// (kB, MB, GB, TB) mean powers of 1000. Case-insensitive except that "b" alone is not "bit".
// Returns nullopt for anything else, for negatives, for fractions of a byte and for overflow.
BK_API std::optional<size_t> parse_size(std::string_view text) noexcept;

// "1.50 GiB", "64.0 MiB", "512 B": three significant digits with a binary unit.
BK_API std::string format_bytes(size_t bytes);
// Bytes per second as decimal GB/s with two decimals: "12.34 GB/s".
BK_API std::string format_rate(double bytes_per_second);

// A sum of byte counts that stops at SIZE_MAX ("more than any machine has") instead of wrapping.
constexpr size_t saturating_add(size_t a, size_t b) noexcept { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

}  // namespace bk
