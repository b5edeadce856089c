// SPDX-License-Identifier: MIT
#include "bk/dtype.h"

#include "bk/quant.h"
#include "bk/strings.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace bk {
namespace {

int32_t saturate_to_i32(double v) noexcept {
  if (std::isnan(v)) return 0;
  if (v >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  if (v <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(std::lrint(v));
}

}  // namespace

std::optional<DType> dtype_from_name(std::string_view name) noexcept {
  for (int i = 0; i < kDTypeCount; ++i) {
    if (iequals(kDTypeTraits[static_cast<size_t>(i)].name, name)) return static_cast<DType>(i);
  }
  return std::nullopt;
}

float f16_to_f32(uint16_t h) noexcept {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: value = mantissa * 2^-24, exact in float.
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

uint16_t f32_to_f16(float f) noexcept {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) {  // Inf or NaN; keep NaN quiet and non-zero
    return static_cast<uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0u));
  }
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to Inf
  if (magnitude < 0x38800000u) {
    // Result is subnormal or zero: scale so the f16 subnormal step (2^-24) becomes 1.0 and let
    // the FPU round to nearest even.
    const float scaled = std::bit_cast<float>(magnitude) * 0x1p24f;
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
  }
  // Normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even.
  const uint32_t rebased = magnitude - (112u << 23);
  const uint32_t round = 0xfffu + ((rebased >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((rebased + round) >> 13));
}

float bf16_to_f32(uint16_t b) noexcept { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t f32_to_bf16(float f) noexcept {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  const uint32_t round = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + round) >> 16);
}

double load_as_double(DType type, const void* element) noexcept {
  switch (type) {
    case DType::F32: {
      float v;
      std::memcpy(&v, element, sizeof v);
      return v;
    }
    case DType::F16: {
      uint16_t v;
      std::memcpy(&v, element, sizeof v);
      return f16_to_f32(v);
    }
    case DType::BF16: {
      uint16_t v;
      std::memcpy(&v, element, sizeof v);
      return bf16_to_f32(v);
    }
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, element, sizeof v);
      return v;
    }
    default:  // quantized: read by the row (dequantize_row)
      return std::nan("");
  }
}

void store_from_double(DType type, void* element, double value) noexcept {
  switch (type) {
    case DType::F32: {
      const auto v = static_cast<float>(value);
      std::memcpy(element, &v, sizeof v);
      return;
    }
    case DType::F16: {
      const uint16_t v = f32_to_f16(static_cast<float>(value));
      std::memcpy(element, &v, sizeof v);
      return;
    }
    case DType::BF16: {
      const uint16_t v = f32_to_bf16(static_cast<float>(value));
      std::memcpy(element, &v, sizeof v);
      return;
    }
    case DType::I32: {
      const int32_t v = saturate_to_i32(value);
      std::memcpy(element, &v, sizeof v);
      return;
    }
    default:  // quantized: written by the row (quantize_row)
      return;
  }
}

void convert(DType from, const void* src, DType to, void* dst, size_t n) noexcept {
  if (from == to) {
    std::memmove(dst, src, n / static_cast<size_t>(dtype_block(from)) * dtype_size(from));
    return;
  }
  if (is_quantized(from) || is_quantized(to)) {
    // Through f32, a row of blocks at a time.
    std::vector<float> row(n);
    if (is_quantized(from)) {
      dequantize_row(from, src, row.data(), static_cast<int64_t>(n));
    } else {
      convert(from, src, DType::F32, row.data(), n);
    }
    if (is_quantized(to)) {
      quantize_row(to, row.data(), dst, static_cast<int64_t>(n));
    } else {
      convert(DType::F32, row.data(), to, dst, n);
    }
    return;
  }
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  const size_t ss = dtype_size(from), ds = dtype_size(to);
  for (size_t i = 0; i < n; ++i) store_from_double(to, d + i * ds, load_as_double(from, s + i * ss));
}

}  // namespace bk
