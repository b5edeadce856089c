// SPDX-License-Identifier: MIT
#pragma once
// The one table of NMSE limits, and why each is what it is: what a device's output may differ
// from the float64 reference (verify/reference.h) by, judged with verify/nmse.h. Every caller
// takes its limit from here: the conformance suite per case, `bkctl smoke`'s checks, `bkctl
// bench`'s result checks and `bkctl sched --run` per graph.
//
// NMSE = sum (got - want)^2 / sum want^2 over an output, want being the float64 reference. The
// reference rounds every stored tensor (inputs, results) to its dtype, so storage rounding is
// not counted against a device; the limits cover only how a device computes. Inputs are
// uniform with magnitudes in [0.1, 1) in the conformance suite (some ops use wider ranges) and
// in [-1, 1) elsewhere; NMSE weighs errors by the output's energy, so values near 0 do not
// make it fragile, and sums do not cancel badly at these magnitudes.
// A relative error e on every element gives an NMSE of about e^2: 1e-6 allows ~1e-3, 1e-10 ~1e-5.
//
// Pure functions of the ops and dtypes, safe from any thread; nothing throws but graph_limit's
// std::bad_alloc.

#include "bk/dtype.h"
#include "bk/graph.h"
#include "bk/tensor.h"

namespace bk::verify {

// Pure data movement (views, cont, cpy and get_rows without a change of dtype, and widening
// conversions to f32): every value is representable, so anything but the exact bits is wrong.
inline constexpr double kExact = 0.0;

// Narrowing conversion f32 -> f16 / bf16 (and f16 <-> bf16). The reference rounds to nearest even;
// a device that truncates (SPIR-V leaves FConvert's rounding to the implementation) is off by
// up to one ulp: mean squared relative error ulp^2 / 3 with ulp = 2^-10 (f16), 2^-7 (bf16).
inline constexpr double narrowing_limit(DType to) { return to == DType::BF16 ? 5e-5 : 1e-6; }

// add, mul, scale. f32: one rounding per element; 1e-10 leaves room for fused or reordered
// arithmetic. f16 / bf16 results: a device computing in the narrow type itself rounds twice,
// one ulp at worst: 2^-11 -> ~1e-7 (f16), 2^-8 -> ~2e-5 (bf16).
inline constexpr double arithmetic_limit(DType t) {
  return t == DType::F32 ? 1e-10 : t == DType::F16 ? 1e-6 : 5e-5;
}

// silu, gelu, rms_norm, soft_max: exp/tanh/rsqrt may be hardware approximations (GPU fast
// math, ~1e-6 relative) or tables: ggml's f16 GELU table (f16 input and output) measures
// NMSE ~6e-8 on the gelu cases, so f32 allows 5e-7. Narrow results as for arithmetic, with room
// for an f16 intermediate.
inline constexpr double transcendental_limit(DType t) {
  return t == DType::F32 ? 5e-7 : t == DType::F16 ? 2e-6 : 5e-5;
}

// rope: the angle pos * base^(-2k/n) is formed in f32 (ggml multiplies theta up pair by pair),
// so at positions up to 4096 it is off by ~pos * 2^-24 * k rad; that measures NMSE ~2e-9 on
// rope_*_128x3x33, and GPU sin/cos of large arguments lose more. 1e-6 for f32.
inline constexpr double rope_limit(DType t) { return t == DType::F32 ? 1e-6 : t == DType::F16 ? 3e-6 : 5e-5; }

// Quantized weights (q8_0, q4_0, q4_k, q6_k): the reference decodes the very blocks the device
// reads, so the quantization itself is no error. mul_mat: a device may quantize the activations
// to 8 bits for integer dot products as ggml's kernels do (steps of max|x| / 127, an error of
// step^2 / 12 per element: ~1.4e-5 of the conformance inputs' energy): 1e-4. Decoding alone
// (get_rows) is exact but for a multiply-add a compiler fuses (~1 ulp of f32): 1e-12.
inline constexpr double kQuantizedMulMatLimit = 1e-4;
inline constexpr double kQuantizedDecodeLimit = 1e-12;

// mul_mat by weight dtype. f32: f32 accumulation of K = 4097 terms measures ~1e-12; 1e-6 also
// admits TF32 tensor cores (10-bit mantissa operands: ~2 * (2^-11)^2 / 3 ~ 1.6e-7). f16: devices
// convert the activations to f16 as ggml's CPU does, which measures ~5e-8; 5e-6 also covers f16
// partial sums in short blocks. bf16 with activations rounded to bf16 measures ~2.4e-6: 5e-5.
inline double mul_mat_limit(DType w) {
  if (is_quantized(w)) return kQuantizedMulMatLimit;
  return w == DType::F32 ? 1e-6 : w == DType::F16 ? 5e-6 : 5e-5;
}

// cpy, cont, get_rows: exact unless the destination is narrower than the source.
inline double copy_limit(DType from, DType to) {
  if (is_quantized(from)) return kQuantizedDecodeLimit;
  const bool widening = from == to || to == DType::F32;
  return widening ? kExact : narrowing_limit(to);
}

// The limit of one node's own computation, by its op and dtypes (the functions above). Leafs
// and views compute nothing: 0.
double limit_for(const Tensor& node) noexcept;

// The limit of a whole graph's outputs. Each computing stage adds its own error to what its
// sources already carry, and independent errors add up in NMSE, so the limit of a tensor is
// limit_for(itself) plus the largest limit among its sources (leafs 0, views their source's);
// the graph's is the largest over its outputs. A graph of one op has that op's limit, and a
// model graph's grows with its depth as its accumulated error does. This assumes each stage
// passes its input's relative error on at a gain of about 1, which holds for the graphs here
// (normalised activations, weights ~1/sqrt(K), residual adds); the per-op limits leave about 10x
// or more room over the errors measured above for the rest.
double graph_limit(const Graph& graph);

}  // namespace bk::verify
