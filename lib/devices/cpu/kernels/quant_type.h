// SPDX-License-Identifier: MIT
#pragma once
// A quantized dtype as the index of the kernel tables' per-type entries (kernel_table.h).

#include "bk/dtype.h"
#include "devices/cpu/kernels/kernel_table.h"

namespace bk {

// t must be quantized (is_quantized).
constexpr QuantType quant_type(DType t) noexcept {
  switch (t) {
    case DType::Q8_0:
      return QuantType::q8_0;
    case DType::Q4_0:
      return QuantType::q4_0;
    case DType::Q4_K:
      return QuantType::q4_k;
    default:
      return QuantType::q6_k;
  }
}

}  // namespace bk
