// SPDX-License-Identifier: MIT
// `bkctl schema`: prints the JSON Schema of a --json output, exactly as it is in schemas/.

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "bk/error.h"
#include "command.h"
#include "commands/schema/schemas.h"
#include "exit_codes.h"
#include "output/table.h"
#include "output/term.h"

namespace bkctl {
namespace {

struct SchemaOptions {
  std::string name;
  bool list = false;
};

// The schema's own "title", so the list says what each one is for.
std::string schema_title(const SchemaInfo& info) {
  const nlohmann::json schema = nlohmann::json::parse(info.text, nullptr, false);
  if (schema.is_object() && schema.contains("title") && schema["title"].is_string()) {
    return schema["title"].get<std::string>();
  }
  return "-";
}

int print_list() {
  Table table({{"name"}, {"schema"}, {"describes", Align::left, true}});
  for (const SchemaInfo& info : schema_catalog())
    table.add_row({info.short_name, info.id, schema_title(info)});
  std::fputs(table.render(term_style_for(stdout)).c_str(), stdout);
  return kExitOk;
}

int run_schema(const SchemaOptions& options) {
  if (options.list) {
    if (!options.name.empty()) {
      throw bk::Error(bk::ErrorCode::invalid_argument, "give either --list or a schema name, not both");
    }
    return print_list();
  }
  if (options.name.empty()) {
    throw bk::Error(bk::ErrorCode::invalid_argument,
                    fmt::format("which schema? give one of: {} (or --list)", schema_names()));
  }
  const std::optional<SchemaInfo> info = find_schema(options.name);
  if (!info) {
    throw bk::Error(bk::ErrorCode::invalid_argument,
                    fmt::format("unknown schema '{}'; known schemas: {}", options.name, schema_names()));
  }
  std::fwrite(info->text.data(), 1, info->text.size(), stdout);
  if (!info->text.ends_with('\n')) std::fputc('\n', stdout);
  return kExitOk;
}

}  // namespace

Command add_schema_command(CLI::App& parent) {
  auto options = std::make_shared<SchemaOptions>();
  CLI::App* app = parent.add_subcommand("schema", "Print the JSON Schema of a --json output");
  app->add_option("name", options->name, "Schema name (devices), id (bk.devices/v1) or file name")
      ->type_name("NAME");
  app->add_flag("-l,--list", options->list, "List the schemas bkctl knows");
  app->footer(
      "Every --json document starts with \"schema\": \"bk.<name>/v<N>\"; a changed field means a\n"
      "new version, and this prints the matching JSON Schema (draft 2020-12).\n"
      "\n"
      "Examples:\n"
      "  bkctl schema --list\n"
      "  bkctl schema devices > bk.devices.v1.json\n"
      "  bkctl schema bk.alloc/v1");
  return {app, [options] { return run_schema(*options); }};
}

}  // namespace bkctl
