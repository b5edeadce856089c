// SPDX-License-Identifier: MIT
#pragma once
// A minimal GGUF writer for tests: builds a file byte by byte, so that a test can make exactly
// the malformed file it needs (a count that lies, a type that does not exist). Not a library
// feature; real files in tests come from ggml's own writer (tests/data/gguf).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace bk::test {

class GgufWriter {
 public:
  GgufWriter& u32(uint32_t v) { return raw(&v, 4); }
  GgufWriter& u64(uint64_t v) { return raw(&v, 8); }
  GgufWriter& str(const std::string& s) {
    u64(s.size());
    return raw(s.data(), s.size());
  }
  GgufWriter& header(uint64_t n_tensors, uint64_t n_kv, uint32_t version = 3) {
    raw("GGUF", 4);
    return u32(version).u64(n_tensors).u64(n_kv);
  }
  GgufWriter& kv_u32(const std::string& key, uint32_t v) { return str(key).u32(4).u32(v); }
  GgufWriter& kv_str(const std::string& key, const std::string& v) { return str(key).u32(8).str(v); }
  // A tensor info: name, dims (ne[0] first), ggml type id, data offset.
  GgufWriter& tensor(const std::string& name, const std::vector<uint64_t>& ne, uint32_t type,
                     uint64_t offset) {
    str(name).u32(static_cast<uint32_t>(ne.size()));
    for (uint64_t n : ne) u64(n);
    return u32(type).u64(offset);
  }
  // Zero bytes up to the next multiple of `alignment`: where the data section starts.
  GgufWriter& pad(size_t alignment = 32) {
    bytes_.resize((bytes_.size() + alignment - 1) / alignment * alignment, std::byte{0});
    return *this;
  }
  GgufWriter& data(size_t n, std::byte fill = std::byte{0}) {
    bytes_.insert(bytes_.end(), n, fill);
    return *this;
  }
  GgufWriter& raw(const void* p, size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
    return *this;
  }
  const std::vector<std::byte>& bytes() const { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

}  // namespace bk::test
