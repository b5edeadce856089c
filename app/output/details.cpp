// SPDX-License-Identifier: MIT
#include "output/details.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

#include "bk/units.h"

namespace bkctl {
namespace {

// Details keys whose integers people read in other units than JSON keeps: byte counts in binary
// units, PCI vendor and device ids in hex (as lspci and vulkaninfo print them). Counts that
// merely end in "_size" (subgroup_size: lanes) are not bytes, hence the explicit endings.
bool is_byte_count(std::string_view key) {
  constexpr std::array<std::string_view, 5> kEndings = {"memory_size", "buffer_size", "chunk_size",
                                                        "allocation_size", "_bytes"};
  if (key == "size") return true;
  for (const std::string_view ending : kEndings) {
    if (key.ends_with(ending)) return true;
  }
  return false;
}

bool is_pci_id(std::string_view key) { return key == "vendor_id" || key == "device_id"; }

std::string render_keyed_scalar(const std::string& key, const nlohmann::json& value) {
  if (value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0)) {
    const auto n = value.get<uint64_t>();
    if (is_byte_count(key)) return bk::format_bytes(n);
    if (is_pci_id(key)) return fmt::format("{:#06x}", n);
  }
  return render_scalar(value);
}

bool is_scalar_list(const nlohmann::json& value) {
  if (!value.is_array()) return false;
  for (const auto& item : value) {
    if (item.is_structured()) return false;
  }
  return true;
}

std::string join_scalars(const nlohmann::json& list) {
  if (list.empty()) return "(none)";
  std::string out;
  for (const auto& item : list) {
    if (!out.empty()) out += ", ";
    out += render_scalar(item);
  }
  return out;
}

std::string render_list_item(const nlohmann::json& item, int indent) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  if (!item.is_object()) {
    return pad + "- " + (item.is_array() ? join_scalars(item) : render_scalar(item)) + "\n";
  }
  // The first key shares the "- " line; the rest line up under it.
  std::string block = render_details(item, indent + 2);
  if (block.size() >= static_cast<size_t>(indent + 2)) block.replace(static_cast<size_t>(indent), 2, "- ");
  return block;
}

std::string render_value(const std::string& key, const nlohmann::json& value, int indent) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  if (value.is_object()) {
    if (value.empty()) return pad + key + ": (none)\n";
    return pad + key + ":\n" + render_details(value, indent + 2);
  }
  if (is_scalar_list(value)) return pad + key + ": " + join_scalars(value) + "\n";
  if (value.is_array()) {
    std::string out = pad + key + ":\n";
    for (const auto& item : value) out += render_list_item(item, indent + 2);
    return out;
  }
  return pad + key + ": " + render_keyed_scalar(key, value) + "\n";
}

}  // namespace

std::string render_scalar(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  if (value.is_null()) return "-";
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string render_details(const nlohmann::json& object, int indent) {
  if (!object.is_object())
    return std::string(static_cast<size_t>(indent), ' ') + render_scalar(object) + "\n";
  std::string out;
  for (const auto& [key, value] : object.items()) out += render_value(key, value, indent);
  return out;
}

}  // namespace bkctl
