// SPDX-License-Identifier: MIT
#pragma once
// Values of a quantized tensor as a device holds them: a packed quantized tensor is its values
// in order, cut into blocks (rows are whole blocks, so no block spans two rows). What bench,
// the conformance cases and the reference write and read; the reference's value of such a leaf
// is its values quantized and decoded again, exactly what the device computes with.
//
// values.size() must be a whole number of the type's blocks. Pure functions.

#include <cstdint>
#include <span>
#include <vector>

#include "bk/dtype.h"

namespace bk::verify {

std::vector<uint8_t> quantize_values(DType type, std::span<const double> values);
std::vector<double> dequantize_values(DType type, std::span<const uint8_t> blocks, size_t count);

// The values a device sees after they were quantized to `type`.
std::vector<double> quantized_round_trip(DType type, std::span<const double> values);

}  // namespace bk::verify
