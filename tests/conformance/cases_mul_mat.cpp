// SPDX-License-Identifier: MIT
// mul_mat by weight dtype: odd M, N, K (1, 7, 33, 4097), decode-like N = 1, 12 and 24, batches
// with and without weight broadcasting, transposed activations and permuted (KV-cache-like)
// weights.
// Names give MxNxK; see core/ops.h for the layout ([K, M] weights, [K, N] activations).
#include "cases_util.h"

namespace bk::conformance {
namespace {

struct MatmulShape {
  int64_t m, n, k;
};

constexpr MatmulShape kMatmulShapes[] = {
    {1, 1, 1},     {7, 1, 33},  // decode: one column
    {33, 7, 4097},              // long reduction with odd sizes everywhere
    {4097, 2, 33},              // many output rows
    {1, 33, 7},    {64, 64, 64},
};

std::string mm_name(DType w, int64_t m, int64_t n, int64_t k, const char* variant = "") {
  return fmt::format("mul_mat_{}_{}x{}x{}{}", dt(w), m, n, k, variant);
}

void add_plain(std::vector<Case>& out, DType w) {
  for (MatmulShape s : kMatmulShapes) {
    out.push_back(make_case(mm_name(w, s.m, s.n, s.k), "mul_mat", w, [=] {
      GraphBuilder g;
      Tensor& r =
          ops::mul_mat(g, g.weight(w, {s.k, s.m, 1, 1}, "w"), g.input(DType::F32, {s.k, s.n, 1, 1}, "x"));
      return g.build({&r});
    }));
  }
}

void add_batched(std::vector<Case>& out, DType w) {
  // x batches 6 x 3 over w batches 2 x 1: each w batch serves 3 consecutive x batches.
  out.push_back(make_case(mm_name(w, 7, 5, 33, "_batch6x3_bcast2x1"), "mul_mat", w, [=] {
    GraphBuilder g;
    Tensor& r = ops::mul_mat(g, g.weight(w, {33, 7, 2, 1}, "w"), g.input(DType::F32, {33, 5, 6, 3}, "x"));
    return g.build({&r});
  }));
  out.push_back(make_case(mm_name(w, 7, 5, 33, "_batch2x3"), "mul_mat", w, [=] {
    GraphBuilder g;
    Tensor& r = ops::mul_mat(g, g.weight(w, {33, 7, 2, 3}, "w"), g.input(DType::F32, {33, 5, 2, 3}, "x"));
    return g.build({&r});
  }));
  // Decode widths (the CPU's packed-column path at 9-16 and 24-32): 24 columns, three x batches
  // over one w, k past a 128-long chunk with a tail.
  out.push_back(make_case(mm_name(w, 37, 24, 130, "_batch3_bcast1"), "mul_mat", w, [=] {
    GraphBuilder g;
    Tensor& r = ops::mul_mat(g, g.weight(w, {130, 37, 1, 1}, "w"), g.input(DType::F32, {130, 24, 3, 1}, "x"));
    return g.build({&r});
  }));
}

void add_non_contiguous(std::vector<Case>& out, DType w) {
  // x stored as [N, K] and read transposed: K is the strided dimension.
  out.push_back(make_case(mm_name(w, 33, 7, 65, "_transposed_x"), "mul_mat", w, [=] {
    GraphBuilder g;
    Tensor& x = ops::transpose(g, g.input(DType::F32, {7, 65, 1, 1}, "x"));
    Tensor& r = ops::mul_mat(g, g.weight(w, {65, 33, 1, 1}, "w"), x);
    return g.build({&r});
  }));
  out.push_back(make_case(mm_name(w, 33, 12, 65, "_transposed_x"), "mul_mat", w, [=] {
    GraphBuilder g;
    Tensor& x = ops::transpose(g, g.input(DType::F32, {12, 65, 1, 1}, "x"));
    Tensor& r = ops::mul_mat(g, g.weight(w, {65, 33, 1, 1}, "w"), x);
    return g.build({&r});
  }));
  // Attention scores: K cache [head_dim, n_kv_heads, tokens] permuted to [head_dim, tokens,
  // n_kv_heads], shared by two query heads each (grouped-query attention).
  out.push_back(make_case(mm_name(w, 9, 5, 16, "_permuted_w_gqa"), "mul_mat", w, [=] {
    GraphBuilder g;
    Tensor& k = ops::permute(g, g.input(w, {16, 2, 9, 1}, "k"), {0, 2, 1, 3});
    Tensor& q = ops::permute(g, g.input(DType::F32, {16, 4, 5, 1}, "q"), {0, 2, 1, 3});
    Tensor& r = ops::mul_mat(g, k, q);
    return g.build({&r});
  }));
}

}  // namespace

void add_mul_mat_cases(std::vector<Case>& out) {
  for (DType w : kFloatTypes) {
    add_plain(out, w);
    add_batched(out, w);
    add_non_contiguous(out, w);
  }
}

}  // namespace bk::conformance
