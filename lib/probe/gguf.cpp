// SPDX-License-Identifier: MIT
#include "probe/gguf.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <unordered_set>

#include "bk/error.h"
#include "bk/units.h"

namespace bk {
namespace {

static_assert(std::endian::native == std::endian::little, "GGUF is read in place: little-endian hosts only");

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian u32
constexpr int kMaxDims = 4;
// The smallest a metadata entry or a tensor info can be in the file: what a count is checked
// against before anything is reserved for it.
constexpr uint64_t kMinEntryBytes = 8 + 1 + 4 + 1;  // key length, one char, type, a u8
constexpr uint64_t kMinTensorInfoBytes = 8 + 1 + 4 + 8 + 4 + 8;

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::invalid_argument, fmt::format("{}: {}", path, what));
}

uint64_t fixed_size(GgufValueType type) noexcept {
  switch (type) {
    case GgufValueType::u8:
    case GgufValueType::i8:
    case GgufValueType::boolean:
      return 1;
    case GgufValueType::u16:
    case GgufValueType::i16:
      return 2;
    case GgufValueType::u32:
    case GgufValueType::i32:
    case GgufValueType::f32:
      return 4;
    case GgufValueType::u64:
    case GgufValueType::i64:
    case GgufValueType::f64:
      return 8;
    case GgufValueType::string:
    case GgufValueType::array:
      return 0;
  }
  return 0;
}

// Reads the file front to back; every read is bounded by the bytes left, and a failure names
// the byte offset where the thing being read starts.
class Cursor {
 public:
  Cursor(std::span<const std::byte> bytes, const std::string& path) : bytes_(bytes), path_(path) {}

  uint64_t pos() const noexcept { return pos_; }
  uint64_t left() const noexcept { return bytes_.size() - pos_; }

  [[noreturn]] void fail(uint64_t at, const std::string& what) const {
    refuse(path_, fmt::format("{} (at byte {})", what, at));
  }

  template <class T>
  T read(std::string_view what) {
    if (left() < sizeof(T)) truncated(what, sizeof(T));
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  std::string_view read_string(std::string_view what) {
    const uint64_t at = pos_;
    const auto length = read<uint64_t>(what);
    if (length > left()) {
      fail(at,
           fmt::format("{} is {} bytes long, but only {} bytes of the file are left", what, length, left()));
    }
    const std::string_view text(reinterpret_cast<const char*>(bytes_.data() + pos_), length);
    pos_ += length;
    return text;
  }

  void skip(uint64_t n, std::string_view what) {
    if (n > left()) truncated(what, n);
    pos_ += n;
  }

 private:
  [[noreturn]] void truncated(std::string_view what, uint64_t need) const {
    fail(pos_,
         fmt::format("the file ends inside {}: it needs {} more bytes, {} are left (a truncated download?)",
                     what, need, left()));
  }

  std::span<const std::byte> bytes_;
  const std::string& path_;
  uint64_t pos_ = 0;
};

GgufValueType read_value_type(Cursor& in, std::string_view what) {
  const uint64_t at = in.pos();
  const auto raw = in.read<uint32_t>(what);
  if (raw > static_cast<uint32_t>(GgufValueType::f64)) {
    in.fail(at, fmt::format("{} has value type {}, which GGUF does not define (0 to 12)", what, raw));
  }
  return static_cast<GgufValueType>(raw);
}

// Steps over an array's elements, checking they are all inside the file.
void skip_array(Cursor& in, const GgufArray& array, const std::string& key) {
  const uint64_t each = fixed_size(array.element_type);
  if (each > 0) {
    if (array.count > in.left() / each) {
      in.fail(array.offset,
              fmt::format("array '{}' claims {} elements of {} bytes, more than the {} bytes left", key,
                          array.count, each, in.left()));
    }
    in.skip(array.count * each, "an array");
    return;
  }
  // Strings: each at least its 8-byte length, so the count is bounded before walking them.
  if (array.count > in.left() / 8) {
    in.fail(array.offset, fmt::format("array '{}' claims {} strings, more than the {} bytes left can hold",
                                      key, array.count, in.left()));
  }
  for (uint64_t i = 0; i < array.count; ++i) in.read_string("a string of array '" + key + "'");
}

GgufKeyValue read_entry(Cursor& in) {
  GgufKeyValue kv;
  const uint64_t at = in.pos();
  kv.key = std::string(in.read_string("a metadata key"));
  if (kv.key.empty()) in.fail(at, "a metadata key is empty");
  const std::string what = "the value of '" + kv.key + "'";
  kv.type = read_value_type(in, what);
  switch (kv.type) {
    case GgufValueType::u8:
      kv.value = uint64_t{in.read<uint8_t>(what)};
      break;
    case GgufValueType::u16:
      kv.value = uint64_t{in.read<uint16_t>(what)};
      break;
    case GgufValueType::u32:
      kv.value = uint64_t{in.read<uint32_t>(what)};
      break;
    case GgufValueType::u64:
      kv.value = in.read<uint64_t>(what);
      break;
    case GgufValueType::i8:
      kv.value = int64_t{in.read<int8_t>(what)};
      break;
    case GgufValueType::i16:
      kv.value = int64_t{in.read<int16_t>(what)};
      break;
    case GgufValueType::i32:
      kv.value = int64_t{in.read<int32_t>(what)};
      break;
    case GgufValueType::i64:
      kv.value = in.read<int64_t>(what);
      break;
    case GgufValueType::f32:
      kv.value = double{in.read<float>(what)};
      break;
    case GgufValueType::f64:
      kv.value = in.read<double>(what);
      break;
    case GgufValueType::boolean:
      kv.value = in.read<uint8_t>(what) != 0;
      break;
    case GgufValueType::string:
      kv.value = std::string(in.read_string(what));
      break;
    case GgufValueType::array: {
      GgufArray array;
      const uint64_t at_type = in.pos();
      array.element_type = read_value_type(in, "the element type of '" + kv.key + "'");
      if (array.element_type == GgufValueType::array) {
        in.fail(at_type, fmt::format("'{}' is an array of arrays, which GGUF readers do not accept", kv.key));
      }
      array.count = in.read<uint64_t>("the length of '" + kv.key + "'");
      array.offset = in.pos();
      skip_array(in, array, kv.key);
      kv.value = array;
      break;
    }
  }
  return kv;
}

// Elements and bytes of a tensor, refusing what overflows or is not whole blocks.
void size_tensor(Cursor& in, uint64_t at, GgufTensor& t) {
  uint64_t elements = 1;
  for (int d = 0; d < t.n_dims; ++d) {
    const auto n = static_cast<uint64_t>(t.ne[d]);
    if (n != 0 && elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / n) {
      in.fail(at, fmt::format("tensor '{}' has dimensions whose product overflows 63 bits", t.name));
    }
    elements *= n;
  }
  if (t.ne[0] % t.type.block_elems != 0) {
    in.fail(at,
            fmt::format("tensor '{}' is {} with rows of {} elements, not a whole number of its {}-element "
                        "blocks",
                        t.name, t.type.name, t.ne[0], t.type.block_elems));
  }
  const std::optional<uint64_t> bytes = gguf_bytes(t.type, elements);
  if (!bytes) in.fail(at, fmt::format("tensor '{}' is too large to address", t.name));
  t.bytes = *bytes;
}

GgufTensor read_tensor_info(Cursor& in, uint64_t alignment) {
  GgufTensor t;
  const uint64_t at = in.pos();
  t.name = std::string(in.read_string("a tensor name"));
  if (t.name.empty()) in.fail(at, "a tensor name is empty");
  const auto n_dims = in.read<uint32_t>("the dimension count of '" + t.name + "'");
  if (n_dims < 1 || n_dims > kMaxDims) {
    in.fail(at, fmt::format("tensor '{}' has {} dimensions; GGUF tensors have 1 to {}", t.name, n_dims,
                            kMaxDims));
  }
  t.n_dims = static_cast<int>(n_dims);
  for (int d = 0; d < t.n_dims; ++d) {
    const auto n = in.read<uint64_t>("a dimension of '" + t.name + "'");
    if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      in.fail(at, fmt::format("tensor '{}' has dimension {} of {}, over 63 bits", t.name, d, n));
    }
    t.ne[d] = static_cast<int64_t>(n);
  }
  const auto type_id = in.read<uint32_t>("the type of '" + t.name + "'");
  const std::optional<GgufType> type = gguf_type(type_id);
  if (!type) in.fail(at, fmt::format("tensor '{}': {}", t.name, gguf_unknown_type_text(type_id)));
  t.type = *type;
  t.offset = in.read<uint64_t>("the data offset of '" + t.name + "'");
  if (t.offset % alignment != 0) {
    in.fail(at, fmt::format("tensor '{}' starts at data offset {}, not a multiple of the alignment {}",
                            t.name, t.offset, alignment));
  }
  size_tensor(in, at, t);
  return t;
}

// Returns the version: 2 or 3.
uint32_t read_version(Cursor& in) {
  const auto magic = in.read<uint32_t>("the magic number");
  if (magic != kMagic) {
    in.fail(0, fmt::format("not a GGUF file: it starts with {:08x}, not 'GGUF' (47 47 55 46)",
                           __builtin_bswap32(magic)));
  }
  const auto version = in.read<uint32_t>("the version");
  if (version == 2 || version == 3) return version;
  if (__builtin_bswap32(version) == 2 || __builtin_bswap32(version) == 3) {
    in.fail(4, "a big-endian GGUF file; bk reads the little-endian files llama.cpp writes");
  }
  if (version == 1) in.fail(4, "GGUF version 1 (2023) is not supported, only 2 and 3; re-convert the model");
  in.fail(4, fmt::format("GGUF version {} is not supported, only 2 and 3", version));
}

uint64_t alignment_of(const std::vector<GgufKeyValue>& metadata, const std::string& path) {
  for (const GgufKeyValue& kv : metadata) {
    if (kv.key != "general.alignment") continue;
    const auto* value = std::get_if<uint64_t>(&kv.value);
    if (kv.type != GgufValueType::u32 || value == nullptr || *value == 0 || (*value & (*value - 1)) != 0) {
      refuse(path, "general.alignment must be a u32 power of two");
    }
    return *value;
  }
  return 32;  // GGUF's default
}

struct Unmap {
  size_t size;
  void operator()(const void* p) const noexcept { ::munmap(const_cast<void*>(p), size); }
};

}  // namespace

std::string_view gguf_value_type_name(GgufValueType type) noexcept {
  constexpr std::string_view kNames[] = {"u8",   "i8",     "u16",   "i16", "u32", "i32", "f32",
                                         "bool", "string", "array", "u64", "i64", "f64"};
  const auto i = static_cast<size_t>(type);
  return i < std::size(kNames) ? kNames[i] : "?";
}

uint64_t GgufTensor::elements() const noexcept {
  uint64_t n = 1;
  for (int d = 0; d < n_dims; ++d) n *= static_cast<uint64_t>(ne[d]);
  return n;
}

GgufFile GgufFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) refuse(path, fmt::format("cannot open it: {}", std::strerror(errno)));
  struct stat info {};
  const bool stat_ok = ::fstat(fd, &info) == 0;
  const int stat_errno = errno;
  if (!stat_ok || !S_ISREG(info.st_mode) || info.st_size < 8) {
    ::close(fd);
    if (!stat_ok) refuse(path, std::strerror(stat_errno));
    if (S_ISDIR(info.st_mode)) refuse(path, "it is a directory; give a .gguf file");
    if (!S_ISREG(info.st_mode)) refuse(path, "it is not a regular file (a device, FIFO or socket)");
    refuse(path, fmt::format("not a GGUF file: it is {} bytes long", info.st_size));
  }
  const auto size = static_cast<size_t>(info.st_size);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = errno;
  ::close(fd);  // the mapping keeps the file
  if (p == MAP_FAILED)
    refuse(path, fmt::format("cannot map its {}: {}", format_bytes(size), std::strerror(map_errno)));
  GgufFile file;
  file.path_ = path;
  file.mapping_ = std::shared_ptr<const void>(p, Unmap{size});
  file.bytes_ = std::span(static_cast<const std::byte*>(p), size);
  file.parse_all();
  return file;
}

GgufFile GgufFile::parse(std::span<const std::byte> bytes, const std::string& name) {
  auto copy = std::make_shared<std::vector<std::byte>>(bytes.begin(), bytes.end());
  GgufFile file;
  file.path_ = name;
  file.bytes_ = std::span<const std::byte>(copy->data(), copy->size());
  file.mapping_ = std::shared_ptr<const void>(copy, copy->data());
  file.parse_all();
  return file;
}

void GgufFile::parse_all() {
  Cursor in(bytes_, path_);
  version_ = read_version(in);
  const uint64_t at_tensors = in.pos();
  const auto n_tensors = in.read<uint64_t>("the tensor count");
  const uint64_t at_kv = in.pos();
  const auto n_kv = in.read<uint64_t>("the metadata count");
  if (n_kv > in.left() / kMinEntryBytes) {
    in.fail(at_kv,
            fmt::format("the file claims {} metadata entries, more than its {} remaining bytes can hold",
                        n_kv, in.left()));
  }
  std::unordered_set<std::string> keys;
  metadata_.reserve(n_kv);
  for (uint64_t i = 0; i < n_kv; ++i) {
    const uint64_t at = in.pos();
    GgufKeyValue kv = read_entry(in);
    if (!keys.insert(kv.key).second) in.fail(at, fmt::format("metadata key '{}' appears twice", kv.key));
    metadata_.push_back(std::move(kv));
  }
  alignment_ = alignment_of(metadata_, path_);
  if (n_tensors > in.left() / kMinTensorInfoBytes) {
    in.fail(at_tensors,
            fmt::format("the file claims {} tensors, more than its {} remaining bytes can describe",
                        n_tensors, in.left()));
  }
  std::unordered_set<std::string> names;
  tensors_.reserve(n_tensors);
  for (uint64_t i = 0; i < n_tensors; ++i) {
    const uint64_t at = in.pos();
    GgufTensor t = read_tensor_info(in, alignment_);
    if (!names.insert(t.name).second) in.fail(at, fmt::format("tensor '{}' appears twice", t.name));
    tensors_.push_back(std::move(t));
  }
  data_offset_ = (in.pos() + alignment_ - 1) / alignment_ * alignment_;
  // Nothing past the tensor infos (and their padding): a header-only file, for planning.
  has_data_ = bytes_.size() > data_offset_;
  if (!has_data_) return;
  const uint64_t data_bytes = bytes_.size() - data_offset_;
  for (const GgufTensor& t : tensors_) {
    if (t.offset > data_bytes || t.bytes > data_bytes - t.offset) {
      refuse(path_,
             fmt::format("tensor '{}' ({}, {} bytes at data offset {}) runs past the end of the file's {} "
                         "bytes of data (a truncated download?)",
                         t.name, t.type.name, t.bytes, t.offset, data_bytes));
    }
  }
}

const GgufKeyValue* GgufFile::find(std::string_view key) const noexcept {
  for (const GgufKeyValue& kv : metadata_) {
    if (kv.key == key) return &kv;
  }
  return nullptr;
}

namespace {

[[noreturn]] void wrong_type(const std::string& path, const GgufKeyValue& kv, std::string_view wanted) {
  refuse(path, fmt::format("metadata '{}' is a {}, not {}", kv.key, gguf_value_type_name(kv.type), wanted));
}

}  // namespace

std::optional<uint64_t> GgufFile::get_uint(std::string_view key) const {
  const GgufKeyValue* kv = find(key);
  if (kv == nullptr) return std::nullopt;
  if (const auto* u = std::get_if<uint64_t>(&kv->value)) return *u;
  if (const auto* i = std::get_if<int64_t>(&kv->value); i != nullptr && *i >= 0)
    return static_cast<uint64_t>(*i);
  wrong_type(path_, *kv, "an integer of 0 or more");
}

std::optional<double> GgufFile::get_float(std::string_view key) const {
  const GgufKeyValue* kv = find(key);
  if (kv == nullptr) return std::nullopt;
  if (const auto* f = std::get_if<double>(&kv->value)) return *f;
  if (const auto* u = std::get_if<uint64_t>(&kv->value)) return static_cast<double>(*u);
  if (const auto* i = std::get_if<int64_t>(&kv->value)) return static_cast<double>(*i);
  wrong_type(path_, *kv, "a number");
}

std::optional<std::string> GgufFile::get_string(std::string_view key) const {
  const GgufKeyValue* kv = find(key);
  if (kv == nullptr) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(&kv->value)) return *s;
  wrong_type(path_, *kv, "a string");
}

std::optional<GgufArray> GgufFile::get_array(std::string_view key) const {
  const GgufKeyValue* kv = find(key);
  if (kv == nullptr) return std::nullopt;
  if (const auto* a = std::get_if<GgufArray>(&kv->value)) return *a;
  wrong_type(path_, *kv, "an array");
}

std::vector<std::string> GgufFile::get_string_array(std::string_view key) const {
  const std::optional<GgufArray> array = get_array(key);
  if (!array) return {};
  if (array->element_type != GgufValueType::string) {
    refuse(path_, fmt::format("metadata '{}' is an array of {}, not of strings", key,
                              gguf_value_type_name(array->element_type)));
  }
  Cursor in(bytes_, path_);
  in.skip(array->offset, "the header");
  std::vector<std::string> out;
  out.reserve(array->count);
  for (uint64_t i = 0; i < array->count; ++i) out.emplace_back(in.read_string("an array string"));
  return out;
}

const GgufTensor* GgufFile::tensor(std::string_view name) const noexcept {
  for (const GgufTensor& t : tensors_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

uint64_t GgufFile::tensor_bytes() const noexcept {
  uint64_t total = 0;
  for (const GgufTensor& t : tensors_) total = saturating_add(total, t.bytes);  // header-only: unbounded
  return total;
}

std::span<const std::byte> GgufFile::data() const {
  if (!has_data_) refuse(path_, "has no tensor data (a header-only file, for planning): it cannot be read");
  return bytes_.subspan(data_offset_);
}

std::span<const std::byte> GgufFile::tensor_data(const GgufTensor& tensor) const {
  if (!has_data_) {
    refuse(path_, fmt::format("has no tensor data (a header-only file, for planning): '{}' cannot be read",
                              tensor.name));
  }
  return data().subspan(tensor.offset, tensor.bytes);
}

}  // namespace bk
