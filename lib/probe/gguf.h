// SPDX-License-Identifier: MIT
#pragma once
// A GGUF model file (versions 2 and 3, little-endian, as llama.cpp and ggml write them): its
// metadata, its tensor infos and, where the file has them, the tensors' bytes.
//
// The file is memory-mapped read-only and never copied: tensor_data() is a view into the
// mapping, which lives as long as any GgufFile that shares it. Parsing reads the header only, so
// a 70B model's file opens in milliseconds; a header-only file (tensor infos, no data, as
// ggml's writer makes with only_meta) is complete for planning and has_data() is false.
//
// Hostile input: every count, length, size and offset is checked against the file before it is
// used, so any bytes either parse or throw bk::Error(invalid_argument) with one line naming the
// file, the byte offset and what is wrong (wrong magic, another version, truncated, a count or
// dimension that overflows, an offset past the end or off the alignment, an unknown value or
// tensor type by its number and name, duplicate keys or tensor names, nested arrays). Nothing
// aborts, and memory use is bounded by the file's size.
//
// Threading: a GgufFile is immutable after construction; concurrent reads are safe.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "probe/gguf_types.h"

namespace bk {

// GGUF's metadata value types, by their numbers in the file.
enum class GgufValueType : uint32_t {
  u8,
  i8,
  u16,
  i16,
  u32,
  i32,
  f32,
  boolean,
  string,
  array,
  u64,
  i64,
  f64
};
std::string_view gguf_value_type_name(GgufValueType type) noexcept;  // "u32", "string", "array"...

// An array's elements stay in the file; GgufFile reads them on request.
struct GgufArray {
  GgufValueType element_type = GgufValueType::u8;
  uint64_t count = 0;
  uint64_t offset = 0;  // of its first element, from the start of the file
};

struct GgufKeyValue {
  std::string key;
  GgufValueType type = GgufValueType::u8;
  // By type: unsigned integers as uint64_t, signed as int64_t, f32/f64 as double, then bool,
  // string, array.
  std::variant<uint64_t, int64_t, double, bool, std::string, GgufArray> value;
};

struct GgufTensor {
  std::string name;
  int n_dims = 0;
  int64_t ne[4] = {1, 1, 1, 1};  // ne[0] innermost (contiguous), as in ggml
  GgufType type;
  uint64_t offset = 0;  // from the start of the data section
  uint64_t bytes = 0;
  uint64_t elements() const noexcept;
};

class GgufFile {
 public:
  // Maps and parses `path`. Throws Error(invalid_argument) for a missing, unreadable or
  // non-regular file and for anything malformed, naming the path.
  static GgufFile open(const std::string& path);
  // Parses bytes already in memory (tests, fuzzing); `name` stands for the path in messages.
  // The bytes are copied.
  static GgufFile parse(std::span<const std::byte> bytes, const std::string& name);

  const std::string& path() const noexcept { return path_; }
  uint32_t version() const noexcept { return version_; }
  uint64_t file_size() const noexcept { return bytes_.size(); }
  uint64_t alignment() const noexcept { return alignment_; }
  uint64_t data_offset() const noexcept { return data_offset_; }
  bool has_data() const noexcept { return has_data_; }

  const std::vector<GgufKeyValue>& metadata() const noexcept { return metadata_; }
  const GgufKeyValue* find(std::string_view key) const noexcept;
  // Typed reads: nullopt when the key is absent; Error(invalid_argument) naming the key and both
  // types when it holds another type (an unsigned read takes any integer that is not negative, a
  // float read any float or integer).
  std::optional<uint64_t> get_uint(std::string_view key) const;
  std::optional<double> get_float(std::string_view key) const;
  std::optional<std::string> get_string(std::string_view key) const;
  std::optional<GgufArray> get_array(std::string_view key) const;
  // The strings of a string array (a tokenizer's tokens); Error as above when it is not one.
  std::vector<std::string> get_string_array(std::string_view key) const;

  const std::vector<GgufTensor>& tensors() const noexcept { return tensors_; }
  const GgufTensor* tensor(std::string_view name) const noexcept;
  uint64_t tensor_bytes() const noexcept;  // all tensors together
  // The data section in the mapping: every tensor's bytes, each at its offset from the start.
  // Error(invalid_argument) for a header-only file.
  std::span<const std::byte> data() const;
  // The tensor's bytes in the mapping. Error(invalid_argument) for a header-only file.
  std::span<const std::byte> tensor_data(const GgufTensor& tensor) const;

 private:
  GgufFile() = default;
  void parse_all();

  std::string path_;
  std::shared_ptr<const void> mapping_;  // keeps bytes_ valid
  std::span<const std::byte> bytes_;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  bool has_data_ = false;
  std::vector<GgufKeyValue> metadata_;
  std::vector<GgufTensor> tensors_;
};

}  // namespace bk
