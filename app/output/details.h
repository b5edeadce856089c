// SPDX-License-Identifier: MIT
#pragma once
// Renders a device's describe() JSON as indented "key: value" lines for `bkctl devices
// --verbose`: nested objects become indented blocks, lists of scalars one comma-separated line,
// lists of objects YAML-style "- " items. Whatever keys a plugin writes come out readable.

#include <nlohmann/json.hpp>

#include <string>

namespace bkctl {

// `indent` spaces before every line; keys keep the order the json iterates them in.
std::string render_details(const nlohmann::json& object, int indent);

// One scalar as text: strings raw, booleans yes/no, null "-", numbers as JSON writes them.
std::string render_scalar(const nlohmann::json& value);

}  // namespace bkctl
