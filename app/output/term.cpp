// SPDX-License-Identifier: MIT
#include "output/term.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

namespace bkctl {
namespace {

std::string_view escape_for(Tone tone) {
  switch (tone) {
    case Tone::plain:
      return "";
    case Tone::header:
      return "\x1b[1m";
    case Tone::good:
      return "\x1b[32m";
    case Tone::bad:
      return "\x1b[1;31m";
    case Tone::dim:
      return "\x1b[2m";
  }
  return "";
}

}  // namespace

std::string TermStyle::paint(std::string_view text, Tone tone) const {
  const std::string_view escape = escape_for(tone);
  if (!color || escape.empty() || text.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size() + escape.size() + 4);
  out.append(escape).append(text).append("\x1b[0m");
  return out;
}

bool is_terminal(std::FILE* stream) { return isatty(fileno(stream)) == 1; }

TermStyle term_style_for(std::FILE* stream) {
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  // TERM=dumb is how Emacs shells, some CI consoles and `script` say "no escape sequences".
  const bool color_disabled =
      (no_color != nullptr && no_color[0] != '\0') || (term != nullptr && std::string_view(term) == "dumb");
  return TermStyle{!color_disabled && is_terminal(stream)};
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

size_t display_width(std::string_view text) {
  size_t width = 0;
  for (const char c : text) {
    // Count every byte that is not a UTF-8 continuation byte (10xxxxxx).
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++width;
  }
  return width;
}

}  // namespace bkctl
