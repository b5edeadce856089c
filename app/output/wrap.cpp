// SPDX-License-Identifier: MIT
#include "output/wrap.h"

#include <algorithm>

#include "output/term.h"

namespace bkctl {
namespace {

// The longest prefix of word that fits in `columns` (at least one code point).
size_t prefix_bytes(std::string_view word, size_t columns) {
  size_t bytes = 0;
  size_t used = 0;
  while (bytes < word.size()) {
    size_t next = bytes + 1;
    while (next < word.size() && (static_cast<unsigned char>(word[next]) & 0xC0U) == 0x80U) ++next;
    if (used + 1 > columns && used > 0) break;
    bytes = next;
    ++used;
  }
  return bytes;
}

// Greedy: as many words on each line as fit; the first line may be narrower or wider than the rest.
void wrap_line(std::string_view line, size_t first_width, size_t width, std::vector<std::string>& out) {
  const size_t first_line = out.size();
  std::string current;
  size_t start = 0;
  while (start <= line.size()) {
    const size_t end = std::min(line.find(' ', start), line.size());
    std::string_view word = line.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    while (!word.empty()) {
      const size_t limit = out.size() == first_line ? first_width : width;
      const size_t used = display_width(current);
      const size_t need = display_width(word) + (current.empty() ? 0 : 1);
      if (used + need <= limit) {
        if (!current.empty()) current += ' ';
        current += word;
        break;
      }
      if (!current.empty()) {
        out.push_back(std::move(current));
        current.clear();
        continue;
      }
      const size_t cut = prefix_bytes(word, limit);  // a word wider than the line
      out.emplace_back(word.substr(0, cut));
      word.remove_prefix(cut);
    }
  }
  out.push_back(std::move(current));
}

}  // namespace

std::vector<std::string> wrap_words(std::string_view text, size_t width) {
  width = std::max<size_t>(width, 1);
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    const size_t newline = text.find('\n', start);
    wrap_line(text.substr(start, newline == std::string_view::npos ? text.npos : newline - start), width,
              width, lines);
    if (newline == std::string_view::npos) break;
    start = newline + 1;
  }
  return lines;
}

std::string wrap_text(std::string_view text, size_t width, size_t hanging) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t newline = text.find('\n', start);
    const size_t end = newline == std::string_view::npos ? text.size() : newline;
    const std::string_view line = text.substr(start, end - start);
    if (display_width(line) <= width) {
      out.append(line);
    } else {
      const size_t indent = std::min(line.find_first_not_of(' '), line.size());
      const std::string continuation(std::min(indent + hanging, width / 2), ' ');
      std::vector<std::string> lines;
      wrap_line(line.substr(indent), std::max<size_t>(width - std::min(indent, width - 1), 1),
                std::max<size_t>(width - continuation.size(), 1), lines);
      out.append(line.substr(0, indent)).append(lines.front());
      for (size_t i = 1; i < lines.size(); ++i) out.append("\n").append(continuation).append(lines[i]);
    }
    if (newline == std::string_view::npos) break;
    out += '\n';
    start = newline + 1;
  }
  return out;
}

}  // namespace bkctl
