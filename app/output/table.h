// SPDX-License-Identifier: MIT
#pragma once
// An aligned text table for human output: a header row, an underline of dashes, then rows.
// Numbers are right-aligned by declaring their column Align::right. Colour, when the style
// allows it, is applied after widths are measured, so escape codes never break the alignment.
// The table fits style.width: columns declared `wraps` (free text: reasons, descriptions,
// paths) give up width, the widest first, and their cells wrap at word boundaries onto more
// lines of the same row. When that would leave the last column too narrow to read and it wraps,
// it moves under its row instead, indented, as wide as the width allows. Other cells are never
// cut: a column of names or numbers keeps its width. A column empty in every row is left out.
// Cell text from outside is made printable (output/term.h) when the cell is made; a cell may
// hold several lines.

#include <string>
#include <string_view>
#include <vector>

#include "output/term.h"

namespace bkctl {

enum class Align { left, right };

struct TableColumn {
  std::string header;
  Align align = Align::left;
  bool wraps = false;  // free text that may wrap to fit the width
};

struct TableCell {
  // A newline in cell_text starts a line of the cell; any other control character is escaped.
  TableCell(std::string_view cell_text, Tone cell_tone = Tone::plain);
  TableCell(const std::string& cell_text, Tone cell_tone = Tone::plain)
      : TableCell(std::string_view(cell_text), cell_tone) {}
  TableCell(const char* cell_text, Tone cell_tone = Tone::plain)
      : TableCell(std::string_view(cell_text), cell_tone) {}
  std::string text;
  Tone tone = Tone::plain;
};

class Table {
 public:
  explicit Table(std::vector<TableColumn> columns);

  // A row with fewer cells than columns is padded with empty cells; extra cells are a
  // programmer error (asserted).
  void add_row(std::vector<TableCell> cells);
  bool empty() const noexcept { return rows_.empty(); }

  // The whole table, one line per row (more where a cell wraps), each ending in '\n', without
  // trailing spaces, fitted to style.width as far as the wrapping columns allow.
  std::string render(const TermStyle& style) const;

 private:
  struct Layout {
    std::vector<size_t> widths;  // per column; 0: left out (empty in every row)
    bool last_below = false;     // the last column goes under its row
  };
  std::vector<size_t> natural_widths() const;
  Layout fit(size_t width) const;
  std::string render_row(const std::vector<TableCell>& cells, const Layout& layout, size_t width,
                         const TermStyle& style) const;

  std::vector<TableColumn> columns_;
  std::vector<std::vector<TableCell>> rows_;
};

}  // namespace bkctl
