// SPDX-License-Identifier: MIT
#pragma once
// How bkctl may decorate what it prints: colour and bold only when the stream is a terminal,
// NO_COLOR (https://no-color.org) is unset or empty and TERM is not "dumb". Pipes and files always
// get plain text. Human output fits `width` columns (tables wrap their free-text columns, prose
// wraps at word boundaries); JSON and CSV are never wrapped.

#include <cstdio>
#include <string>
#include <string_view>

namespace bkctl {

enum class Tone { plain, header, good, bad, dim };

inline constexpr size_t kDefaultWidth = 80;

struct TermStyle {
  bool color = false;
  size_t width = kDefaultWidth;  // columns human output may use

  // Wraps text in the escape codes for tone, or returns it unchanged when colour is off.
  std::string paint(std::string_view text, Tone tone) const;
};

// The style for a stdio stream (stdout or stderr): colour from isatty(), NO_COLOR and TERM, and
// the width from terminal_width().
TermStyle term_style_for(std::FILE* stream);
bool is_terminal(std::FILE* stream);

// The columns of the terminal the stream writes to (TIOCGWINSZ); when it is not a terminal,
// $COLUMNS (20 to 1000, as shells export it); else 80.
size_t terminal_width(std::FILE* stream);

// Columns a UTF-8 string takes on a terminal: code points, no wide-character handling; colour
// escapes (ESC [ ... letter) take none.
size_t display_width(std::string_view text);

// Text from outside (device and graph names, plugin and driver messages) made safe to print:
// control characters, which could move the cursor or recolour the terminal, become \xNN.
std::string printable(std::string_view text);

}  // namespace bkctl
