// SPDX-License-Identifier: MIT
// Quantized weights (q8_0, q4_0, q4_k, q6_k) in ggml's block layouts: mul_mat with f32
// activations on every path (one column, decode widths, rows decoded for the dot path, the GEMM,
// W taller than the CPU's 256-row decode panel, x batches over one w, x read transposed) and
// get_rows. K runs over
// several blocks with the last one apart; the reference decodes the same blocks
// (probe/verify/quant_values.h).
#include "cases_util.h"

namespace bk::conformance {
namespace {

constexpr std::array<DType, 4> kQuantizedTypes{DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K};

struct QuantShape {
  int64_t m, n, blocks, batches;
  const char* variant;
};

constexpr QuantShape kQuantShapes[] = {
    // One weight block against four columns: four dot products, not one. The limit bounds the
    // error's energy against the outputs'; a single dot product that happens to cancel (0.002
    // out of terms near 1, about one seed in a thousand) can exceed it with any rounding of the
    // activations at all.
    {1, 4, 1, 1, ""},
    {7, 1, 17, 1, ""},  // decode: one column
    {33, 7, 3, 1, ""},
    {300, 2, 2, 1, ""},   // W taller than a decode panel
    {64, 40, 5, 1, ""},   // the GEMM path
    {300, 40, 2, 1, ""},  // the GEMM over two decode panels, the second shorter (X packed once)
    {9, 5, 2, 3, "_batch3_bcast1"},
    {70, 12, 2, 3, "_batch3_bcast1"},  // past the fused kernels' columns, more than one task of rows
};

void add_mul_mat(std::vector<Case>& out, DType w) {
  for (const QuantShape& s : kQuantShapes) {
    const int64_t k = s.blocks * dtype_block(w);
    out.push_back(
        make_case(fmt::format("mul_mat_{}_{}x{}x{}{}", dt(w), s.m, s.n, k, s.variant), "mul_mat", w, [=] {
          GraphBuilder g;
          Tensor& r = ops::mul_mat(g, g.weight(w, {k, s.m, 1, 1}, "w"),
                                   g.input(DType::F32, {k, s.n, s.batches, 1}, "x"));
          return g.build({&r});
        }));
  }
  // x stored as [N, K] and read transposed (K strided): the kernels' activation loads that are
  // not vec4s. 3 columns: a decode width; 17: a column past a 16-column block on its own.
  for (const int64_t n : {3, 17}) {
    const int64_t k = 3 * dtype_block(w);
    out.push_back(make_case(fmt::format("mul_mat_{}_33x{}x{}_transposed_x", dt(w), n, k), "mul_mat", w, [=] {
      GraphBuilder g;
      Tensor& r = ops::mul_mat(g, g.weight(w, {k, 33, 1, 1}, "w"),
                               ops::transpose(g, g.input(DType::F32, {n, k, 1, 1}, "x")));
      return g.build({&r});
    }));
  }
}

void add_quant_get_rows(std::vector<Case>& out, DType t) {
  const int64_t row = 2 * dtype_block(t);
  out.push_back(make_case(fmt::format("get_rows_{}_{}x100_7", dt(t), row), "get_rows", t,
                          [=] {
                            GraphBuilder g;
                            Tensor& r = ops::get_rows(g, g.weight(t, {row, 100, 1, 1}, "table"),
                                                      g.input(DType::I32, {7, 1, 1, 1}, "ids"));
                            return g.build({&r});
                          },
                          {{"ids", integers(0, 100)}}));
}

}  // namespace

void add_quantized_cases(std::vector<Case>& out) {
  for (DType t : kQuantizedTypes) {
    add_mul_mat(out, t);
    add_quant_get_rows(out, t);
  }
}

}  // namespace bk::conformance
