// SPDX-License-Identifier: MIT
#pragma once
// The tensor types a GGUF file can store, by ggml's type ids, with their block layouts: a row of
// a quantized type is a run of blocks, each holding block_elems elements in block_bytes bytes
// (Q4_K: 256 elements in 144 bytes). Plain types are blocks of one element. The layouts are
// ggml's, so that files load as the rest of the ecosystem writes them. Pure data, thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bk/dtype.h"

namespace bk {

struct GgufType {
  uint32_t id = 0;
  std::string_view name;  // ggml's name: "F32", "Q4_K", "IQ2_XXS"
  uint32_t block_elems = 1;
  uint32_t block_bytes = 0;
};

// The type with this id; nullopt for an id no GGUF writer stores (never assigned, or retired).
std::optional<GgufType> gguf_type(uint32_t id) noexcept;

// Why an id is not a type, for messages: "type 31 (Q4_0_4_4) was only ever a repacked in-memory
// layout; no GGUF file stores it", "type 57 is not a ggml tensor type (known: 0 to 42)".
std::string gguf_unknown_type_text(uint32_t id);

// The bk dtype a GGUF tensor type is stored as in memory, unchanged (F32, F16, BF16, I32, Q8_0,
// Q4_0, Q4_K, Q6_K); nullopt for the types bk has no kernels for.
std::optional<DType> gguf_dtype(const GgufType& type) noexcept;

// Bytes of `elements` elements of `type`, or nullopt when elements is not a whole number of
// blocks or the size does not fit in 64 bits.
std::optional<uint64_t> gguf_bytes(const GgufType& type, uint64_t elements) noexcept;

}  // namespace bk
