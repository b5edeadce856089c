// SPDX-License-Identifier: MIT
// bkctl's output layer: aligned tables that fit the width, wrapping, colour rules, the terminal
// width, number formats, details rendering.

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "bk/strings.h"
#include "bk/units.h"
#include "output/details.h"
#include "output/format.h"
#include "output/json_out.h"
#include "output/table.h"
#include "output/term.h"
#include "output/wrap.h"

namespace bkctl {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines = bk::split(text, '\n');
  EXPECT_TRUE(!lines.empty() && lines.back().empty()) << "every line ends in a newline";
  lines.pop_back();
  return lines;
}

std::string strip_escapes(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b') {
      while (i < text.size() && text[i] != 'm') ++i;
      continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

Table sample_table() {
  Table table({{"name"}, {"bytes", Align::right}, {"note"}});
  table.add_row({"CPU", "123", "fine"});
  table.add_row({"Vulkan0", "4", ""});
  return table;
}

TEST(Term, ControlCharactersAreEscapedForTheTerminal) {
  EXPECT_EQ(printable("Vulkan0"), "Vulkan0");
  EXPECT_EQ(printable("a\x1b[31mred\x7f\tb"), "a\\x1b[31mred\\x7f\\x09b");
  EXPECT_EQ(printable("caf\xc3\xa9"), "caf\xc3\xa9");
}

TEST(Table, AlignsColumnsAndUnderlinesTheHeader) {
  const std::vector<std::string> lines = lines_of(sample_table().render(TermStyle{false}));
  ASSERT_EQ(lines.size(), 4U);
  EXPECT_EQ(lines[0], "name     bytes  note");
  EXPECT_EQ(lines[1], "-------  -----  ----");
  EXPECT_EQ(lines[2], "CPU        123  fine");
  EXPECT_EQ(lines[3], "Vulkan0      4");  // no trailing spaces for the empty last cell
}

TEST(Table, PadsShortRowsWithEmptyCells) {
  Table table({{"a"}, {"b"}});
  table.add_row({"x"});
  EXPECT_EQ(lines_of(table.render(TermStyle{false})).back(), "x");
}

TEST(Table, WidensForUtf8ByCodePointNotByte) {
  Table table({{"n"}, {"x"}});
  table.add_row({"\u00e9t\u00e9", "1"});  // "été": 3 columns, 5 bytes
  const std::vector<std::string> lines = lines_of(table.render(TermStyle{false}));
  EXPECT_EQ(lines[2], "\u00e9t\u00e9  1");
}

TEST(Table, PlainStyleHasNoEscapesAndColourKeepsAlignment) {
  const std::string plain = sample_table().render(TermStyle{false});
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  const std::string coloured = sample_table().render(TermStyle{true});
  EXPECT_NE(coloured.find('\x1b'), std::string::npos);
  EXPECT_EQ(strip_escapes(coloured), plain);
}

size_t widest_line(const std::string& text) {
  size_t widest = 0;
  for (const std::string& line : lines_of(text)) widest = std::max(widest, display_width(line));
  return widest;
}

TEST(Table, WrappingColumnsGiveUpWidthWidestFirstAndWrapAtWords) {
  Table table({{"device"}, {"status"}, {"reason", Align::left, true}});
  const std::string reason =
      "the Vulkan loader found no driver for this GPU; install mesa-vulkan-drivers or the vendor's driver";
  table.add_row({"Vulkan0", "unsupported", reason});
  table.add_row({"CPU", "ok", "fine"});
  const std::string text = table.render(TermStyle{false, 44});
  EXPECT_LE(widest_line(text), 44U) << text;
  const std::vector<std::string> lines = lines_of(text);
  EXPECT_EQ(lines[0].substr(0, 21), "device   status      ");
  EXPECT_EQ(lines[2].substr(0, 21), "Vulkan0  unsupported ");
  // The continuation lines stay in the reason column, and every word survives whole.
  std::string joined;
  for (size_t i = 2; i + 1 < lines.size(); ++i) {
    if (i > 2) {
      EXPECT_EQ(lines[i].substr(0, 22), std::string(22, ' ')) << text;
    }
    joined += (joined.empty() ? "" : " ") + lines[i].substr(22);
  }
  EXPECT_EQ(joined, reason);
  EXPECT_EQ(lines.back(), "CPU      ok           fine");
}

TEST(Table, WideTerminalsAndFixedColumnsAreLeftAlone) {
  EXPECT_EQ(sample_table().render(TermStyle{false, 10}), sample_table().render(TermStyle{false, 200}))
      << "no wrapping column: names and numbers are never cut";
  Table table({{"id"}, {"why", Align::left, true}});
  table.add_row({"1", "short"});
  EXPECT_EQ(lines_of(table.render(TermStyle{false, 200})).back(), "1   short");
}

TEST(Wrap, BreaksAtSpacesCutsOnlyWordsWiderThanTheLine) {
  EXPECT_EQ(wrap_words("one two three", 7), (std::vector<std::string>{"one two", "three"}));
  EXPECT_EQ(wrap_words("abcdefghij", 4), (std::vector<std::string>{"abcd", "efgh", "ij"}));
  EXPECT_EQ(wrap_words("a\nb c", 80), (std::vector<std::string>{"a", "b c"}));
  EXPECT_EQ(wrap_words("", 5), (std::vector<std::string>{""}));
  EXPECT_EQ(wrap_words("\u00e9t\u00e9 \u00e9t\u00e9", 3),
            (std::vector<std::string>{"\u00e9t\u00e9", "\u00e9t\u00e9"}));
}

TEST(Wrap, LongLinesGetAHangingIndentAndShortOnesStay) {
  const std::string text = "short\n  gpu0 runs no node; passed over: unsupported_op 12\n";
  const std::string wrapped = wrap_text(text, 30);
  EXPECT_EQ(wrapped, "short\n  gpu0 runs no node; passed\n    over: unsupported_op 12\n");
  EXPECT_EQ(wrap_text(text, 200), text);
}

TEST(Term, ColourEscapesTakeNoColumns) {
  EXPECT_EQ(display_width("\x1b[1;31mFAILED\x1b[0m"), 6U);
  EXPECT_EQ(display_width(TermStyle{true}.paint("ok", Tone::good)), 2U);
}

TEST(TermStyle, WidthComesFromColumnsWhenNotATerminal) {
  if (isatty(fileno(stdout)) == 1) GTEST_SKIP() << "stdout is a terminal: its own width wins";
  ::setenv("COLUMNS", "132", 1);
  EXPECT_EQ(terminal_width(stdout), 132U);
  ::setenv("COLUMNS", "5", 1);  // out of range: a mistake
  EXPECT_EQ(terminal_width(stdout), kDefaultWidth);
  ::setenv("COLUMNS", "12x", 1);
  EXPECT_EQ(terminal_width(stdout), kDefaultWidth);
  ::unsetenv("COLUMNS");
  EXPECT_EQ(terminal_width(stdout), kDefaultWidth);
}

TEST(Strings, CountsTakeTheirNounInTheRightNumber) {
  EXPECT_EQ(bk::count_of(1, "split"), "1 split");
  EXPECT_EQ(bk::count_of(0, "split"), "0 splits");
  EXPECT_EQ(bk::count_of(24, "leaf", "leafs"), "24 leafs");
  EXPECT_EQ(bk::count_of(1, "leaf", "leafs"), "1 leaf");
}

TEST(TermStyle, NoColorDisablesColourEvenForATerminal) {
  ::setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(term_style_for(stdout).color);
  ::unsetenv("NO_COLOR");
}

TEST(TermStyle, PaintLeavesTextAloneWithoutColour) {
  EXPECT_EQ(TermStyle{false}.paint("ok", Tone::good), "ok");
  EXPECT_EQ(TermStyle{true}.paint("ok", Tone::plain), "ok");
  EXPECT_EQ(TermStyle{true}.paint("ok", Tone::good), "\x1b[32mok\x1b[0m");
}

TEST(Format, MemoryInGibWithOneDecimal) {
  EXPECT_EQ(format_memory(size_t{3} << 29, size_t{47} << 29), "1.5 / 23.5 GiB");
  EXPECT_EQ(format_gib(0), "0.0");
}

TEST(Format, SizeSuggestionsParseBackAndNeverExceedTheLimit) {
  for (size_t bytes : {size_t{100}, size_t{5} << 20, (size_t{22} << 30) + 12345, size_t{1} << 40}) {
    const std::string text = format_size_arg(bytes);
    const auto parsed = bk::parse_size(text);
    ASSERT_TRUE(parsed.has_value()) << text;
    EXPECT_LE(*parsed, bytes) << text;
  }
  EXPECT_EQ(format_size_arg((size_t{22} << 30) + 12345), "22GiB");
  EXPECT_EQ(format_size_arg(size_t{5} << 20), "5MiB");
}

TEST(Format, RatesAndTimes) {
  EXPECT_EQ(format_gbps(2'000'000'000, 0.5), "4.00");
  EXPECT_EQ(format_gbps(1, 0.0), "-");
  EXPECT_DOUBLE_EQ(gbps(1, 0.0), 0.0);
  EXPECT_EQ(format_ms(0.25), "250");
  EXPECT_EQ(format_ms(0.0015), "1.50");
  EXPECT_EQ(format_hex64(0xabc), "0x0000000000000abc");
}

TEST(Details, RendersNestedObjectsListsAndScalars) {
  const nlohmann::json details = {
      {"arch", "x86_64"},
      {"isa", {"avx", "avx2"}},
      {"topology", {{"cores", 2}, {"smt", false}}},
      {"caches", {{{"name", "L1d"}, {"size", 32768}}, {{"name", "L2"}, {"size", 524288}}}},
      {"empty", nlohmann::json::array()},
      {"limits", {{"max_buffer_size", 4294967295U}, {"subgroup_size", 8}}},
      {"vendor_id", 4318},
  };
  // Byte counts in binary units and PCI ids in hex, as people read them; other counts as they are.
  EXPECT_EQ(render_details(details, 2),
            "  arch: x86_64\n"
            "  caches:\n"
            "    - name: L1d\n"
            "      size: 32.0 KiB\n"
            "    - name: L2\n"
            "      size: 512 KiB\n"
            "  empty: (none)\n"
            "  isa: avx, avx2\n"
            "  limits:\n"
            "    max_buffer_size: 4.00 GiB\n"
            "    subgroup_size: 8\n"
            "  topology:\n"
            "    cores: 2\n"
            "    smt: no\n"
            "  vendor_id: 0x10de\n");
}

TEST(JsonOut, SchemaComesFirstAndKeysKeepTheirOrder) {
  ojson document = json_document("bk.test/v1");
  document["zeta"] = 1;
  document["alpha"] = to_ordered(nlohmann::json{{"b", 1}, {"a", nullptr}});
  EXPECT_EQ(render_json(document),
            "{\n  \"schema\": \"bk.test/v1\",\n  \"zeta\": 1,\n  \"alpha\": {\n    \"a\": null,\n    \"b\": "
            "1\n  }\n}\n");
}

TEST(JsonOut, InvalidUtf8IsReplacedNotFatal) {
  ojson document = json_document("bk.test/v1");
  document["brand"] = std::string("bad \xff byte");
  EXPECT_NE(render_json(document).find("bad"), std::string::npos);
}

TEST(JsonOut, EmptyStringsBecomeNull) {
  EXPECT_TRUE(string_or_null("").is_null());
  EXPECT_EQ(string_or_null("x"), "x");
}

}  // namespace
}  // namespace bkctl
