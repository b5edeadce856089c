// SPDX-License-Identifier: MIT
#pragma once
// Reading a file the user names on the command line (a graph file, a bench baseline, smoke
// floors): whole, into memory, but only a regular file and only up to a cap, so that /dev/zero,
// a FIFO or a multi-gigabyte file is refused with a message instead of filling the memory.
//
// Errors: bk::Error(invalid_argument) naming `what`, the path and the reason: missing or not
// readable, a directory, not a regular file, larger than kMaxInputFileBytes (both sizes given).

#include <cstddef>
#include <string>
#include <string_view>

namespace bk {

// Every JSON input bkctl reads is far below this (the largest graph files are a few MiB).
inline constexpr size_t kMaxInputFileBytes = size_t{64} << 20;

std::string read_input_file(const std::string& path, std::string_view what,
                            size_t max_bytes = kMaxInputFileBytes);

}  // namespace bk
