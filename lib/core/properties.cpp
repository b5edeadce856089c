// SPDX-License-Identifier: MIT
#include "bk/properties.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "bk/error.h"
#include "bk/strings.h"

namespace bk {
namespace {

nlohmann::json to_json_value(const PropertyValue& value) {
  return std::visit(
      [](const auto& v) -> nlohmann::json {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>) {
          return nullptr;
        } else {
          return v;
        }
      },
      value);
}

bool is_index(std::string_view segment) noexcept {
  return !segment.empty() &&
         std::all_of(segment.begin(), segment.end(), [](char c) { return c >= '0' && c <= '9'; });
}

[[noreturn]] void shape_conflict(const std::string& key) {
  throw Error(ErrorCode::invalid_argument,
              fmt::format("device properties: key '{}' conflicts with another key's shape", key));
}

// The slot a path segment names inside `node`, which becomes an array for an index segment and
// an object otherwise.
nlohmann::json& child(nlohmann::json& node, std::string_view segment, const std::string& key) {
  if (is_index(segment)) {
    if (node.is_null()) node = nlohmann::json::array();
    if (!node.is_array()) shape_conflict(key);
    const size_t index = std::stoul(std::string(segment));
    if (index > node.size()) shape_conflict(key);  // lists are filled in order, without gaps
    if (index == node.size()) node.push_back(nullptr);
    return node[index];
  }
  if (node.is_null()) node = nlohmann::json::object();
  if (!node.is_object()) shape_conflict(key);
  return node[std::string(segment)];
}

}  // namespace

void Properties::put(std::string_view key, PropertyValue value) {
  auto it = std::find_if(items_.begin(), items_.end(), [&](const Property& p) { return p.key == key; });
  if (it != items_.end()) {
    it->value = std::move(value);
  } else {
    items_.push_back({std::string(key), std::move(value)});
  }
}

void Properties::set_list(std::string_view key, const std::vector<std::string>& items) {
  for (size_t i = 0; i < items.size(); ++i) set(fmt::format("{}.{}", key, i), items[i]);
}

const PropertyValue* Properties::find(std::string_view key) const noexcept {
  auto it = std::find_if(items_.begin(), items_.end(), [&](const Property& p) { return p.key == key; });
  return it != items_.end() ? &it->value : nullptr;
}

std::string Properties::to_json() const {
  nlohmann::json root = nlohmann::json::object();
  for (const Property& p : items_) {
    nlohmann::json* node = &root;
    for (const std::string& segment : split(p.key, '.')) node = &child(*node, segment, p.key);
    if (!node->is_null() && (node->is_object() || node->is_array())) shape_conflict(p.key);
    *node = to_json_value(p.value);
  }
  // Device strings (a CPU brand, a driver name) may hold invalid UTF-8: replaced, never fatal.
  return root.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace bk
