// SPDX-License-Identifier: MIT
#include "output/term.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
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
  return TermStyle{!color_disabled && is_terminal(stream), terminal_width(stream)};
}

size_t terminal_width(std::FILE* stream) {
  winsize size{};
  if (ioctl(fileno(stream), TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  const char* columns = std::getenv("COLUMNS");
  if (columns != nullptr) {
    const std::string_view text(columns);
    size_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    // Out of range is a mistake, not a wish: 80 serves better than one word per line.
    if (error == std::errc() && end == text.data() + text.size() && value >= 20 && value <= 1000)
      return value;
  }
  return kDefaultWidth;
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
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {  // ESC [ params letter
      i += 2;
      while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
      continue;
    }
    // Count every byte that is not a UTF-8 continuation byte (10xxxxxx).
    if ((static_cast<unsigned char>(text[i]) & 0xC0U) != 0x80U) ++width;
  }
  return width;
}

}  // namespace bkctl
