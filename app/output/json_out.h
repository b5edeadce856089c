// SPDX-License-Identifier: MIT
#pragma once
// JSON output: every --json document is an ordered object whose first field is "schema"
// ("bk.<thing>/vN"), printed with two-space indentation and a final newline. Invalid UTF-8 in
// strings that come from the system (a CPU brand, a driver name) is replaced, never fatal.

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <string_view>

namespace bkctl {

using ojson = nlohmann::ordered_json;

// An object that starts with {"schema": id}.
ojson json_document(std::string_view schema_id);

// Devices describe themselves into a plain (key-sorted) json; this keeps that order.
ojson to_ordered(const nlohmann::json& value);

// A string, or null when it is empty: optional text fields in the schemas are "string or null".
ojson string_or_null(const std::string& text);

std::string render_json(const ojson& document);
void print_json(const ojson& document, std::FILE* stream = stdout);

}  // namespace bkctl
