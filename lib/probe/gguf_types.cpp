// SPDX-License-Identifier: MIT
#include "probe/gguf_types.h"

#include <fmt/format.h>

#include <array>
#include <limits>

namespace bk {
namespace {

constexpr uint32_t kSuper = 256;  // ggml's QK_K: the super-block of the K and most IQ types

// Block sizes as ggml's ggml-common.h static_asserts them.
constexpr std::array kTypes = {
    GgufType{0, "F32", 1, 4},
    GgufType{1, "F16", 1, 2},
    GgufType{2, "Q4_0", 32, 18},
    GgufType{3, "Q4_1", 32, 20},
    GgufType{6, "Q5_0", 32, 22},
    GgufType{7, "Q5_1", 32, 24},
    GgufType{8, "Q8_0", 32, 34},
    GgufType{9, "Q8_1", 32, 36},
    GgufType{10, "Q2_K", kSuper, 84},
    GgufType{11, "Q3_K", kSuper, 110},
    GgufType{12, "Q4_K", kSuper, 144},
    GgufType{13, "Q5_K", kSuper, 176},
    GgufType{14, "Q6_K", kSuper, 210},
    GgufType{15, "Q8_K", kSuper, 292},
    GgufType{16, "IQ2_XXS", kSuper, 66},
    GgufType{17, "IQ2_XS", kSuper, 74},
    GgufType{18, "IQ3_XXS", kSuper, 98},
    GgufType{19, "IQ1_S", kSuper, 50},
    GgufType{20, "IQ4_NL", 32, 18},
    GgufType{21, "IQ3_S", kSuper, 110},
    GgufType{22, "IQ2_S", kSuper, 82},
    GgufType{23, "IQ4_XS", kSuper, 136},
    GgufType{24, "I8", 1, 1},
    GgufType{25, "I16", 1, 2},
    GgufType{26, "I32", 1, 4},
    GgufType{27, "I64", 1, 8},
    GgufType{28, "F64", 1, 8},
    GgufType{29, "IQ1_M", kSuper, 56},
    GgufType{30, "BF16", 1, 2},
    GgufType{34, "TQ1_0", kSuper, 54},
    GgufType{35, "TQ2_0", kSuper, 66},
    GgufType{39, "MXFP4", 32, 17},
    GgufType{40, "NVFP4", 64, 36},
    GgufType{41, "Q1_0", 128, 18},
    GgufType{42, "Q2_0", 64, 18},
};

constexpr uint32_t kLastId = 42;

std::string_view retired_name(uint32_t id) noexcept {
  switch (id) {
    case 4:
      return "Q4_2";
    case 5:
      return "Q4_3";
    case 31:
      return "Q4_0_4_4";
    case 32:
      return "Q4_0_4_8";
    case 33:
      return "Q4_0_8_8";
    case 36:
      return "IQ4_NL_4_4";
    case 37:
      return "IQ4_NL_4_8";
    case 38:
      return "IQ4_NL_8_8";
    default:
      return {};
  }
}

}  // namespace

std::optional<GgufType> gguf_type(uint32_t id) noexcept {
  for (const GgufType& t : kTypes) {
    if (t.id == id) return t;
  }
  return std::nullopt;
}

std::string gguf_unknown_type_text(uint32_t id) {
  const std::string_view retired = retired_name(id);
  if (id == 4 || id == 5) {
    return fmt::format("tensor type {} ({}) was removed from ggml before GGUF existed; re-convert the model",
                       id, retired);
  }
  if (!retired.empty()) {
    return fmt::format(
        "tensor type {} ({}) was only ever a repacked in-memory layout, never a stored one; "
        "re-convert the model",
        id, retired);
  }
  return fmt::format(
      "tensor type {} is not a ggml tensor type bk knows (0 to {}); the file may be newer than "
      "bk, or damaged",
      id, kLastId);
}

std::optional<DType> gguf_dtype(const GgufType& type) noexcept {
  switch (type.id) {
    case 0:
      return DType::F32;
    case 1:
      return DType::F16;
    case 8:
      return DType::Q8_0;
    case 2:
      return DType::Q4_0;
    case 12:
      return DType::Q4_K;
    case 14:
      return DType::Q6_K;
    case 26:
      return DType::I32;
    case 30:
      return DType::BF16;
    default:
      return std::nullopt;
  }
}

std::optional<uint64_t> gguf_bytes(const GgufType& type, uint64_t elements) noexcept {
  if (elements % type.block_elems != 0) return std::nullopt;
  const uint64_t blocks = elements / type.block_elems;
  if (blocks > std::numeric_limits<uint64_t>::max() / type.block_bytes) return std::nullopt;
  return blocks * type.block_bytes;
}

}  // namespace bk
