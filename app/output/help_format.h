// SPDX-License-Identifier: MIT
#pragma once
// bkctl's --help: CLI11's layout fitted to the terminal (output/term.h terminal_width) and
// speaking one placeholder vocabulary. Options are two columns, the description wrapped at
// kHelpColumn; a long option takes a line of its own. Numbers are N whatever their C++ type, a
// validator's own description never joins the placeholder, defaults and "(required)" go at the
// end of the description. Footers are reflowed: a paragraph of prose is wrapped as one, an
// indented line (an example) keeps its line, its padding before a '#' comment squeezed first.
//
// Placeholders, given with ->type_name() where an option is declared:
//   DEV one device, DEVS devices (comma-separated), DUR a duration (500ms, 60s, 5m), FILE,
//   LIST a comma-separated list, N a number, NAME a name from a fixed set, PCT a percentage,
//   REQ a requirement (CUDA>=2), SIZE bytes (64MiB), DEV=SIZE, NAME=DEV.

#include <CLI/CLI.hpp>

#include <string>

namespace bkctl {

inline constexpr size_t kHelpColumn = 30;        // options' descriptions
inline constexpr size_t kSubcommandColumn = 12;  // subcommands' descriptions (short names)

class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(size_t width);

  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_option_opts(const CLI::Option* opt) const override;
  std::string make_option_desc(const CLI::Option* opt) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;

 private:
  std::string two_columns(const std::string& left, const std::string& right, size_t column) const;

  size_t width_;
};

// The placeholder an option shows: its type name without validator descriptions, numbers as N.
std::string help_placeholder(const CLI::Option& opt);

// Reflows a footer to `width` (see the header comment).
std::string reflow_footer(const std::string& footer, size_t width);

}  // namespace bkctl
