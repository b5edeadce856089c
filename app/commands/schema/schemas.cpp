// SPDX-License-Identifier: MIT
#include "commands/schema/schemas.h"

#include <algorithm>
#include <charconv>

#include "bk/strings.h"

namespace bkctl {
namespace {

constexpr std::string_view kPrefix = "bk.";
constexpr std::string_view kSuffix = ".json";

// "bk.devices.v1.json" -> {"bk.devices/v1", "devices", 1}; nullopt for other names.
std::optional<SchemaInfo> parse_file_name(const SchemaFile& file) {
  std::string_view name = file.file_name;
  if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return std::nullopt;
  name = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  const size_t dot = name.rfind(".v");
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;
  const std::string_view digits = name.substr(dot + 2);
  int version = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), version);
  if (ec != std::errc{} || ptr != digits.data() + digits.size() || version <= 0) return std::nullopt;
  SchemaInfo info;
  info.short_name = std::string(name.substr(0, dot));
  info.version = version;
  info.id = std::string(kPrefix) + info.short_name + "/v" + std::string(digits);
  info.text = file.text;
  return info;
}

}  // namespace

std::vector<SchemaInfo> schema_catalog() {
  std::vector<SchemaInfo> catalog;
  for (const SchemaFile& file : embedded_schema_files()) {
    if (auto info = parse_file_name(file)) catalog.push_back(std::move(*info));
  }
  std::sort(catalog.begin(), catalog.end(), [](const SchemaInfo& a, const SchemaInfo& b) {
    return a.short_name != b.short_name ? a.short_name < b.short_name : a.version < b.version;
  });
  return catalog;
}

std::optional<SchemaInfo> find_schema(std::string_view name) {
  const std::string wanted = bk::to_lower(bk::trim(name));
  std::optional<SchemaInfo> found;
  for (SchemaInfo& info : schema_catalog()) {
    const std::string file_name =
        std::string(kPrefix) + info.short_name + ".v" + std::to_string(info.version) + std::string(kSuffix);
    if (wanted == info.id || wanted == file_name) return info;
    // The catalog is sorted by version, so the last match by short name is the newest.
    if (wanted == info.short_name) found = std::move(info);
  }
  return found;
}

std::string schema_names() {
  std::string names;
  std::string last;
  for (const SchemaInfo& info : schema_catalog()) {
    if (info.short_name == last) continue;
    if (!names.empty()) names += ", ";
    names += info.short_name;
    last = info.short_name;
  }
  return names;
}

}  // namespace bkctl
