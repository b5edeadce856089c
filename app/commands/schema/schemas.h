// SPDX-License-Identifier: MIT
#pragma once
// The JSON Schemas of every --json output, embedded at build time from schemas/*.json.
//
// A schema's file name is its identity: "bk.devices.v1.json" is schema id "bk.devices/v1",
// short name "devices", version 1. Every JSON document bkctl prints starts with that id in its
// "schema" field.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bkctl {

struct SchemaFile {
  std::string_view file_name;  // "bk.devices.v1.json"
  std::string_view text;       // the file's contents, byte for byte
};

// Generated (see app/cmake/embed_schemas.cmake), sorted by file name.
std::span<const SchemaFile> embedded_schema_files();

struct SchemaInfo {
  std::string id;          // "bk.devices/v1"
  std::string short_name;  // "devices"
  int version = 0;         // 1
  std::string_view text;
};

// Every embedded schema whose file name has the bk.<name>.v<N>.json form, sorted by short name
// and then version.
std::vector<SchemaInfo> schema_catalog();

// Finds a schema by short name (the newest version), by id ("bk.devices/v1") or by file name
// ("bk.devices.v1.json"), case-insensitively.
std::optional<SchemaInfo> find_schema(std::string_view name);

// "alloc, devices": for error messages.
std::string schema_names();

}  // namespace bkctl
