// SPDX-License-Identifier: MIT
#include "output/json_out.h"

namespace bkctl {

ojson json_document(std::string_view schema_id) {
  ojson document = ojson::object();
  document["schema"] = schema_id;
  return document;
}

ojson to_ordered(const nlohmann::json& value) {
  if (value.is_object()) {
    ojson out = ojson::object();
    for (const auto& [key, item] : value.items()) out[key] = to_ordered(item);
    return out;
  }
  if (value.is_array()) {
    ojson out = ojson::array();
    for (const auto& item : value) out.push_back(to_ordered(item));
    return out;
  }
  switch (value.type()) {
    case nlohmann::json::value_t::string:
      return value.get<std::string>();
    case nlohmann::json::value_t::boolean:
      return value.get<bool>();
    case nlohmann::json::value_t::number_integer:
      return value.get<int64_t>();
    case nlohmann::json::value_t::number_unsigned:
      return value.get<uint64_t>();
    case nlohmann::json::value_t::number_float:
      return value.get<double>();
    case nlohmann::json::value_t::binary:
      return ojson::binary(value.get_binary());
    default:
      return nullptr;
  }
}

ojson string_or_null(const std::string& text) {
  if (text.empty()) return nullptr;
  return text;
}

std::string render_json(const ojson& document) {
  return document.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

void print_json(const ojson& document, std::FILE* stream) {
  const std::string text = render_json(document);
  std::fwrite(text.data(), 1, text.size(), stream);
  std::fflush(stream);
}

}  // namespace bkctl
