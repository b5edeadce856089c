// SPDX-License-Identifier: MIT
#include "output/table.h"

#include <algorithm>
#include <cassert>

#include "bk/strings.h"
#include "output/wrap.h"

namespace bkctl {
namespace {

constexpr std::string_view kColumnGap = "  ";
// A wrapping column never gets narrower than this (or its header): below it, text reads as a
// column of word fragments.
constexpr size_t kMinWrapWidth = 12;
// Below this, the last column reads better under its row than squeezed beside it.
constexpr size_t kMinBesideWidth = 20;
constexpr size_t kBelowIndent = 6;

}  // namespace

TableCell::TableCell(std::string_view cell_text, Tone cell_tone) : tone(cell_tone) {
  const std::vector<std::string> lines = bk::split(cell_text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) text += (i > 0 ? "\n" : "") + printable(lines[i]);
}

Table::Table(std::vector<TableColumn> columns) : columns_(std::move(columns)) {}

void Table::add_row(std::vector<TableCell> cells) {
  assert(cells.size() <= columns_.size());
  while (cells.size() < columns_.size()) cells.emplace_back("");
  rows_.push_back(std::move(cells));
}

std::vector<size_t> Table::natural_widths() const {
  std::vector<size_t> widths(columns_.size(), 0);
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) {
      for (const std::string& line : bk::split(row[i].text, '\n')) {
        widths[i] = std::max(widths[i], display_width(line));
      }
    }
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (widths[i] > 0 || rows_.empty()) widths[i] = std::max(widths[i], display_width(columns_[i].header));
  }
  return widths;
}

Table::Layout Table::fit(size_t width) const {
  Layout layout{natural_widths()};
  std::vector<size_t>& widths = layout.widths;
  const auto total = [&] {
    size_t sum = 0, shown = 0;
    for (size_t i = 0; i < widths.size(); ++i) {
      if (widths[i] == 0 || (layout.last_below && i + 1 == widths.size())) continue;
      sum += widths[i];
      ++shown;
    }
    return sum + kColumnGap.size() * (shown > 0 ? shown - 1 : 0);
  };
  const auto shrink = [&] {
    while (total() > width) {
      // Narrow the widest wrapping column that is above its floor, one column at a time.
      size_t widest = widths.size();
      for (size_t i = 0; i < widths.size(); ++i) {
        const size_t floor = std::max(kMinWrapWidth, display_width(columns_[i].header));
        if (columns_[i].wraps && widths[i] > floor &&
            (widest == widths.size() || widths[i] > widths[widest])) {
          widest = i;
        }
      }
      if (widest == widths.size()) return;  // nothing left to give: as narrow as it gets
      --widths[widest];
    }
  };
  const std::vector<size_t> natural = widths;
  shrink();
  const size_t last = widths.size() - 1;
  if (columns_[last].wraps && widths[last] > 0 && widths[last] < natural[last] &&
      widths[last] < kMinBesideWidth) {
    widths = natural;
    layout.last_below = true;
    shrink();
  }
  return layout;
}

std::string Table::render_row(const std::vector<TableCell>& cells, const Layout& layout, size_t width,
                              const TermStyle& style) const {
  const std::vector<size_t>& widths = layout.widths;
  const size_t beside = layout.last_below ? cells.size() - 1 : cells.size();
  std::vector<std::vector<std::string>> lines;
  size_t height = 1;
  for (size_t i = 0; i < beside; ++i) {
    lines.push_back(wrap_words(cells[i].text, columns_[i].wraps ? widths[i] : SIZE_MAX));
    height = std::max(height, lines.back().size());
  }
  std::string out;
  for (size_t row = 0; row < height; ++row) {
    std::string line;
    bool first = true;
    for (size_t i = 0; i < beside; ++i) {
      if (widths[i] == 0) continue;
      if (!first) line.append(kColumnGap);
      first = false;
      const std::string text = row < lines[i].size() ? lines[i][row] : "";
      const size_t padding = widths[i] - std::min(widths[i], display_width(text));
      if (columns_[i].align == Align::right) line.append(padding, ' ');
      line.append(style.paint(text, cells[i].tone));
      line.append(columns_[i].align == Align::left ? padding : 0, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.append(line).push_back('\n');
  }
  if (beside < cells.size() && !cells.back().text.empty()) {
    const std::string indent(kBelowIndent, ' ');
    for (const std::string& text : wrap_words(cells.back().text, width - std::min(width - 1, kBelowIndent))) {
      out.append(indent).append(style.paint(text, cells.back().tone)).push_back('\n');
    }
  }
  return out;
}

std::string Table::render(const TermStyle& style) const {
  const Layout layout = fit(style.width);
  std::vector<TableCell> header;
  std::vector<TableCell> underline;
  for (size_t i = 0; i < columns_.size(); ++i) {
    const bool shown = layout.widths[i] > 0 && !(layout.last_below && i + 1 == columns_.size());
    header.emplace_back(shown ? columns_[i].header : "", Tone::header);
    underline.emplace_back(std::string(shown ? layout.widths[i] : 0, '-'), Tone::dim);
  }
  std::string out =
      render_row(header, layout, style.width, style) + render_row(underline, layout, style.width, style);
  for (const auto& row : rows_) out += render_row(row, layout, style.width, style);
  return out;
}

}  // namespace bkctl
