// SPDX-License-Identifier: MIT
#include "probe/verify/quant_values.h"

#include "bk/quant.h"

namespace bk::verify {

std::vector<uint8_t> quantize_values(DType type, std::span<const double> values) {
  std::vector<float> f(values.begin(), values.end());
  std::vector<uint8_t> blocks(values.size() / static_cast<size_t>(dtype_block(type)) * dtype_size(type));
  quantize_row(type, f.data(), blocks.data(), static_cast<int64_t>(f.size()));
  return blocks;
}

std::vector<double> dequantize_values(DType type, std::span<const uint8_t> blocks, size_t count) {
  std::vector<float> f(count);
  dequantize_row(type, blocks.data(), f.data(), static_cast<int64_t>(count));
  return {f.begin(), f.end()};
}

std::vector<double> quantized_round_trip(DType type, std::span<const double> values) {
  return dequantize_values(type, quantize_values(type, values), values.size());
}

}  // namespace bk::verify
