// SPDX-License-Identifier: MIT
#include "output/help_format.h"

#include <fmt/format.h>

#include <algorithm>

#include "bk/strings.h"
#include "output/term.h"
#include "output/wrap.h"

namespace bkctl {
namespace {

bool is_number_type(const std::string& name) {
  return name == "INT" || name == "UINT" || name == "FLOAT" || name == "NUMBER";
}

// An example line that still does not fit: broken at spaces, continued with '\' as a shell
// would take it.
std::string fit_example(const std::string& line, size_t width) {
  const size_t indent = std::min(line.find_first_not_of(' '), line.size());
  std::vector<std::string> words = bk::split(line.substr(indent), ' ');
  std::string out(indent, ' ');
  size_t column = indent;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i].empty()) continue;
    if (column > indent && column + 1 + display_width(words[i]) + 2 > width) {
      out += " \\\n" + std::string(indent + 4, ' ');
      column = indent + 4;
    } else if (column > indent) {
      out += ' ';
      ++column;
    }
    out += words[i];
    column += display_width(words[i]);
  }
  return out;
}

// An indented block (examples, a table) as written when it fits. Otherwise its '#' comments are
// realigned just past the widest command of the block, and a line that still does not fit is
// broken (fit_example).
std::string fit_block(const std::vector<std::string>& lines, size_t width) {
  size_t widest = 0;
  for (const std::string& line : lines) widest = std::max(widest, display_width(line));
  std::string out;
  if (widest <= width) {
    for (const std::string& line : lines) out += line + "\n";
    return out;
  }
  size_t code_width = 0;  // the widest command that has a comment
  for (const std::string& line : lines) {
    const size_t hash = line.find("  #");
    if (hash != std::string::npos) code_width = std::max(code_width, line.find_last_not_of(' ', hash) + 1);
  }
  for (const std::string& line : lines) {
    std::string fitted = line;
    const size_t hash = line.find("  #");
    if (hash != std::string::npos) {
      const std::string code = line.substr(0, line.find_last_not_of(' ', hash) + 1);
      fitted = code + std::string(code_width + 2 - code.size(), ' ') + line.substr(line.find('#', hash));
      if (display_width(fitted) > width) fitted = code + "  " + line.substr(line.find('#', hash));
    }
    out += (display_width(fitted) > width ? fit_example(fitted, width) : fitted) + "\n";
  }
  return out;
}

}  // namespace

HelpFormatter::HelpFormatter(size_t width) : width_(width) {}

std::string help_placeholder(const CLI::Option& opt) {
  std::string name = opt.get_type_name();
  name = name.substr(0, name.find(':'));
  return is_number_type(name) ? "N" : name;
}

std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
  if (opt->get_type_size() == 0) return {};
  std::string out = " " + help_placeholder(*opt);
  if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
  return out;
}

std::string HelpFormatter::make_option_desc(const CLI::Option* opt) const {
  std::string out = opt->get_description();
  if (opt->get_type_size() != 0 && !opt->get_default_str().empty()) {
    out += fmt::format(" (default {})", opt->get_default_str());
  }
  if (opt->get_required()) out += " (required)";
  return out;
}

std::string HelpFormatter::two_columns(const std::string& left, const std::string& right,
                                       size_t column) const {
  const std::string name = "  " + left;
  const size_t text_width = width_ > column + 20 ? width_ - column : 20;
  const std::vector<std::string> lines = wrap_words(right, text_width);
  std::string out = name;
  size_t first = 0;
  if (display_width(name) + 1 < column) {
    out += std::string(column - display_width(name), ' ') + lines.front();
    first = 1;
  }
  out += '\n';
  for (size_t i = first; i < lines.size(); ++i) out += std::string(column, ' ') + lines[i] + '\n';
  return out;
}

std::string HelpFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  return two_columns(make_option_name(opt, is_positional) + make_option_opts(opt), make_option_desc(opt),
                     kHelpColumn);
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
  return two_columns(sub->get_display_name(true), sub->get_description(), kSubcommandColumn);
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  const std::string text = CLI::Formatter::make_description(app);
  return text.empty() ? text : wrap_text(text, width_);
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  const std::string footer = app->get_footer();
  return footer.empty() ? footer : reflow_footer(footer, width_) + "\n";
}

std::string reflow_footer(const std::string& footer, size_t width) {
  std::string out;
  std::string prose;               // the paragraph being collected
  std::vector<std::string> block;  // the indented lines being collected
  const auto flush = [&] {
    if (!prose.empty()) {
      for (const std::string& line : wrap_words(prose, width)) out += line + "\n";
    }
    if (!block.empty()) out += fit_block(block, width);
    prose.clear();
    block.clear();
  };
  for (const std::string& line : bk::split(footer, '\n')) {
    if (line.starts_with(' ')) {
      if (!prose.empty()) flush();
      block.push_back(line);
    } else if (line.empty() || line.ends_with(':')) {
      flush();
      out += line + "\n";
    } else {
      if (!block.empty()) flush();
      prose += (prose.empty() ? "" : " ") + line;
    }
  }
  flush();
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace bkctl
