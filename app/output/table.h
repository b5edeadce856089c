// SPDX-License-Identifier: MIT
#pragma once
// An aligned text table for human output: a header row, an underline of dashes, then rows.
// Numbers are right-aligned by declaring their column Align::right. Colour, when the style
// allows it, is applied after widths are measured, so escape codes never break the alignment.
// Cells are never truncated: a long CPU brand string widens its column instead.

#include <string>
#include <vector>

#include "output/term.h"

namespace bkctl {

enum class Align { left, right };

struct TableColumn {
  std::string header;
  Align align = Align::left;
};

struct TableCell {
  TableCell(std::string cell_text, Tone cell_tone = Tone::plain)
      : text(std::move(cell_text)), tone(cell_tone) {}
  TableCell(const char* cell_text) : text(cell_text) {}
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

  // The whole table, one line per row, each ending in '\n', without trailing spaces.
  std::string render(const TermStyle& style) const;

 private:
  std::vector<size_t> column_widths() const;
  std::string render_line(const std::vector<TableCell>& cells, const std::vector<size_t>& widths,
                          const TermStyle& style) const;

  std::vector<TableColumn> columns_;
  std::vector<std::vector<TableCell>> rows_;
};

}  // namespace bkctl
