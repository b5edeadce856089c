// SPDX-License-Identifier: MIT
#pragma once
// Word wrapping for human output, by display columns (output/term.h display_width): what makes
// long reasons, paths and explanations fit the terminal instead of running past its edge.

#include <string>
#include <string_view>
#include <vector>

namespace bkctl {

// `text` as lines of at most `width` columns, broken at spaces (the spaces at a break are
// dropped). A newline in text always breaks. A word longer than width is cut at width, since a
// line past the edge is what wrapping exists to prevent. Empty text is one empty line.
std::vector<std::string> wrap_words(std::string_view text, size_t width);

// Every line of `text` that is wider than `width` wrapped, its continuation lines indented by its
// own leading spaces plus `hanging`; lines that fit are kept as they are. Keeps a final newline.
std::string wrap_text(std::string_view text, size_t width, size_t hanging = 2);

}  // namespace bkctl
