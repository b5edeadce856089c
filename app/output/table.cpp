// SPDX-License-Identifier: MIT
#include "output/table.h"

#include <algorithm>
#include <cassert>

namespace bkctl {
namespace {

constexpr std::string_view kColumnGap = "  ";

}  // namespace

Table::Table(std::vector<TableColumn> columns) : columns_(std::move(columns)) {}

void Table::add_row(std::vector<TableCell> cells) {
  assert(cells.size() <= columns_.size());
  while (cells.size() < columns_.size()) cells.emplace_back("");
  for (TableCell& cell : cells) cell.text = printable(cell.text);
  rows_.push_back(std::move(cells));
}

std::vector<size_t> Table::column_widths() const {
  std::vector<size_t> widths;
  widths.reserve(columns_.size());
  for (const TableColumn& column : columns_) widths.push_back(display_width(column.header));
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], display_width(row[i].text));
  }
  return widths;
}

std::string Table::render_line(const std::vector<TableCell>& cells, const std::vector<size_t>& widths,
                               const TermStyle& style) const {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) line.append(kColumnGap);
    const size_t padding = widths[i] - display_width(cells[i].text);
    const bool last = i + 1 == cells.size();
    if (columns_[i].align == Align::right) line.append(padding, ' ');
    line.append(style.paint(cells[i].text, cells[i].tone));
    if (columns_[i].align == Align::left && !last) line.append(padding, ' ');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  line.push_back('\n');
  return line;
}

std::string Table::render(const TermStyle& style) const {
  const std::vector<size_t> widths = column_widths();
  std::vector<TableCell> header;
  std::vector<TableCell> underline;
  for (size_t i = 0; i < columns_.size(); ++i) {
    header.emplace_back(columns_[i].header, Tone::header);
    underline.emplace_back(std::string(widths[i], '-'), Tone::dim);
  }
  std::string out = render_line(header, widths, style) + render_line(underline, widths, style);
  for (const auto& row : rows_) out += render_line(row, widths, style);
  return out;
}

}  // namespace bkctl
