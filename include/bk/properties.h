// SPDX-License-Identifier: MIT
#pragma once
// Properties: what a device says about itself beyond the fixed getters (Device::describe):
// driver, topology, limits, heaps. An ordered list of key/value pairs, so that no third-party
// type crosses the library's interface and any plugin can fill it.
//
// A key is a dot-separated path: "limits.max_storage_buffer_range" nests inside "limits", and an
// all-digit segment indexes a list ("memory_heaps.0.size", "isa_features.3"), so any JSON-shaped
// description fits; to_json() builds that shape. Keys keep the order they were set in; setting a
// key again replaces its value. A value is null, a boolean, a signed or unsigned integer, a real
// number or text. Not thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "bk/api.h"

namespace bk {

using PropertyValue = std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string>;

struct BK_API Property {
  std::string key;
  PropertyValue value;
};

class BK_API Properties {
 public:
  // Any integer, real, bool or string-like value; an empty optional is null.
  template <typename T>
  void set(std::string_view key, const T& value) {
    put(key, to_value(value));
  }
  void set_null(std::string_view key) { put(key, std::monostate{}); }
  // A list of texts: key.0, key.1, ... (an empty list sets nothing).
  void set_list(std::string_view key, const std::vector<std::string>& items);

  const std::vector<Property>& items() const noexcept { return items_; }
  // The value of a key, or nullptr.
  const PropertyValue* find(std::string_view key) const noexcept;
  // The nested JSON object the keys describe. Throws Error(invalid_argument) naming the key when
  // two keys disagree about the shape ("a" holds a value and "a.b" another).
  std::string to_json() const;

 private:
  template <typename T>
  static PropertyValue to_value(const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      return value;
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      return static_cast<int64_t>(value);
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<uint64_t>(value);
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<double>(value);
    } else if constexpr (requires { value.has_value(); }) {
      return value.has_value() ? to_value(*value) : PropertyValue{};
    } else {
      return std::string(value);
    }
  }
  void put(std::string_view key, PropertyValue value);

  std::vector<Property> items_;
};

}  // namespace bk
