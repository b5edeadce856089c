// SPDX-License-Identifier: MIT
#pragma once
// "Did you mean": the known word nearest to a mistyped one, for usage errors.

#include <string>
#include <string_view>
#include <vector>

namespace bkctl {

// The candidate nearest to `word` by edit distance (insertions, deletions, substitutions and
// swaps of neighbouring letters, case-insensitive), when it is near enough to be a typo: one edit
// for words of up to four letters, two beyond. Ties go to the earlier candidate. Empty when no
// candidate is that near.
std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'X'?" for nearest_word, or empty.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace bkctl
