// SPDX-License-Identifier: MIT
#pragma once
// The op set: builder functions that add checked nodes to a GraphBuilder, and the one way
// devices read a node's parameters.
//
// Every builder checks shapes and dtypes and throws Error(invalid_argument) naming the op, the
// tensors (name, dtype, shape) and the rule that was broken; nothing aborts. Builders only
// describe work: nothing is allocated or computed. The returned tensor is owned by the builder
// (then by the Graph it builds) and its name is "<op>-<n>"; callers may rename it.
//
// Conventions (ggml's, so that kernels and models port directly):
// - ne[0] is the innermost, fastest dimension; a "row" is the ne[0] elements at fixed i1..i3.
// - Sources may be non-contiguous views (permute, transpose, view) unless a builder says
//   otherwise; a device that cannot read a layout answers supports_op false for it.
// - Float dtypes are F32, F16 and BF16; I32 is used only for indices and positions.
//
// Semantics, exactly (i0..i3 index the result):
//   add(a, b)      r = a + b[i0 % b.ne0, i1 % b.ne1, i2 % b.ne2, i3 % b.ne3]   (b repeats over a)
//   mul(a, b)      r = a * b[...same broadcast...]
//   scale(a, s)    r = a * s
//   silu(a)        r = a / (1 + exp(-a))
//   gelu(a)        r = 0.5 a (1 + tanh(sqrt(2/pi) (a + 0.044715 a^3)))   (the tanh approximation)
//   rms_norm(a, e) per row: r = a / sqrt(mean(a^2) + e)
//   soft_max(a, m, s)  per row: r = softmax(s * a + m[i0, i1, i2 % m.ne2, i3 % m.ne3])
//   rope(a, p, n, mode, base)   a is [head_dim, n_heads, n_tokens, ne3], p[i2] the position of
//                  token i2. For pair k < n/2, theta = p * base^(-2k/n), and the pair
//                  (x0, x1) becomes (x0 cos - x1 sin, x0 sin + x1 cos). normal mode pairs
//                  elements (2k, 2k+1); neox mode pairs (k, k + n/2). Elements i0 >= n are copied.
//   mul_mat(w, x)  see below.
//   get_rows(t, idx)  r[:, i1, i2, i3] = t[:, idx[i1, i2, i3], i2, i3], converted to F32.
//   cpy / cast / cont  copy elements in logical (row-major, i0 fastest) order, converting dtype
//                  with round-to-nearest-even.
// Results have a's dtype unless stated otherwise.

#include <array>
#include <cstddef>
#include <cstdint>

#include "bk/api.h"
#include "bk/graph.h"
#include "bk/tensor.h"

namespace bk {

enum class RopeMode : int32_t {
  normal = 0,  // rotate adjacent pairs (x[2k], x[2k+1]): the original RoPE, LLaMA in ggml
  neox = 1,    // rotate the halves (x[k], x[k + n_dims/2]): GPT-NeoX, most HF checkpoints
};
BK_API const char* rope_mode_name(RopeMode mode) noexcept;  // "normal", "neox"

}  // namespace bk

namespace bk::ops {

// Element-wise. a and b are float tensors; b broadcasts over a when every a.ne[i] is a multiple
// of b.ne[i] (a whole row, a column, a single value...). The result has a's shape and dtype.
BK_API Tensor& add(GraphBuilder& g, Tensor& a, Tensor& b);
BK_API Tensor& mul(GraphBuilder& g, Tensor& a, Tensor& b);
BK_API Tensor& scale(GraphBuilder& g, Tensor& a, float s);
BK_API Tensor& silu(GraphBuilder& g, Tensor& a);
// GELU with the tanh approximation (as in GPT-2 and ggml), not the erf form.
BK_API Tensor& gelu(GraphBuilder& g, Tensor& a);

// Matrix multiplication in ggml's convention: both operands store the reduction dimension K
// innermost, so every output element is the dot product of a row of w and a row of x.
//   w: [K, M, B2, B3]  weights, F32, F16 or BF16
//   x: [K, N, C2, C3]  activations, F32, with C2 % B2 == 0 and C3 % B3 == 0
//   r: [M, N, C2, C3]  F32,  r[m, n, c2, c3] = sum_k w[k, m, c2 / (C2/B2), c3 / (C3/B3)] * x[k, n, c2, c3]
// In the usual notation r^T = W x^T with W an M x K matrix. Batches of w are shared by
// C2/B2 consecutive batches of x (grouped-query attention), hence division, not modulo.
BK_API Tensor& mul_mat(GraphBuilder& g, Tensor& w, Tensor& x);

// Normalises each row by its root mean square; eps > 0 keeps a zero row finite.
BK_API Tensor& rms_norm(GraphBuilder& g, Tensor& a, float eps);
// Softmax over each row of scale * a + mask. mask is optional (nullptr): F32, mask.ne0 == a.ne0,
// mask.ne1 >= a.ne1 (row i1 of a uses row i1 of the mask, so a larger causal mask can be
// shared), and a.ne2 % mask.ne2 == 0, a.ne3 % mask.ne3 == 0 (repeated over dims 2-3).
// -inf mask entries are allowed; a row that is all -inf is the caller's error.
BK_API Tensor& soft_max(GraphBuilder& g, Tensor& a, Tensor* mask, float scale);

// Rotary position embedding. a: float [head_dim, n_heads, n_tokens, ne3]; positions: I32
// [n_tokens]; n_dims: how many leading elements of each head rotate, even, 0 < n_dims <=
// head_dim; freq_base > 0 (10000 in most models).
BK_API Tensor& rope(GraphBuilder& g, Tensor& a, Tensor& positions, int n_dims, RopeMode mode,
                    float freq_base);

// Gathers rows. table: F32, F16 or BF16 [ne0, rows, B2, B3]; indices: I32 [n, B2, B3, 1];
// result: F32 [ne0, n, B2, B3]. Index values must lie in [0, rows) when computed.
BK_API Tensor& get_rows(GraphBuilder& g, Tensor& table, Tensor& indices);

// Copies a into the memory of b, converting to b's dtype (ggml's cpy). a and b are float
// tensors with the same number of elements (their shapes may differ; elements pair up in
// logical order). The result is a view of b (src[0] = a, src[1] = b, view_src = b's storage):
// use it, not b, so that readers are ordered after the copy.
BK_API Tensor& cpy(GraphBuilder& g, Tensor& a, Tensor& b);
// A new tensor of a's shape with the elements of a converted to `type` (Op::cpy, no src[1]).
BK_API Tensor& cast(GraphBuilder& g, Tensor& a, DType type);
// A new contiguous tensor with a's shape, dtype and elements (Op::cont).
BK_API Tensor& cont(GraphBuilder& g, Tensor& a);

// Views: alias the source's memory and compute nothing.
// Same elements, new shape; a must be contiguous and ne must hold as many elements.
BK_API Tensor& reshape(GraphBuilder& g, Tensor& a, const Shape& ne);
// Any shape and byte strides at byte offset into a; offset and strides must be multiples of
// the element size and every element must lie inside a's bytes [0, a.nbytes()).
BK_API Tensor& view(GraphBuilder& g, Tensor& a, const Shape& ne, const Strides& nb, size_t offset);
// ggml's permute: dimension i of a becomes dimension axes[i] of the result. axes must be a
// permutation of {0, 1, 2, 3}; the axes are kept as params (permute_axes). permute(a, {1, 0, 2,
// 3}) is transpose(a) and is built as Op::transpose.
BK_API Tensor& permute(GraphBuilder& g, Tensor& a, const std::array<int, kMaxDims>& axes);
// Swaps dimensions 0 and 1.
BK_API Tensor& transpose(GraphBuilder& g, Tensor& a);

}  // namespace bk::ops

namespace bk {

// Op parameters live in Tensor::params, floats bit-cast. Devices read them through these
// accessors only. The raw ones throw Error(invalid_argument) for an index outside
// [0, kMaxOpParams); the typed ones throw Error(invalid_argument) when node has another op.
BK_API float op_param_f32(const Tensor& node, int index);
BK_API int32_t op_param_i32(const Tensor& node, int index);
BK_API void set_op_param_f32(Tensor& node, int index, float value);
BK_API void set_op_param_i32(Tensor& node, int index, int32_t value);

struct BK_API RopeParams {
  int32_t n_dims = 0;
  RopeMode mode = RopeMode::normal;
  float freq_base = 10000.0f;
};

BK_API float scale_factor(const Tensor& node);      // Op::scale: s
BK_API float rms_norm_eps(const Tensor& node);      // Op::rms_norm: eps
BK_API float soft_max_scale(const Tensor& node);    // Op::soft_max: scale (the mask is src[1], or null)
BK_API RopeParams rope_params(const Tensor& node);  // Op::rope
BK_API std::array<int, kMaxDims> permute_axes(const Tensor& node);  // Op::permute and Op::transpose

}  // namespace bk
