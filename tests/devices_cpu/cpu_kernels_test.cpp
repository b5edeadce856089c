// SPDX-License-Identifier: MIT
// The ISA tiers against each other and against double-precision answers, on the loops of the
// kernel table and on whole ops. The conformance suite covers every op on the default tier and
// (registered a second time with BK_CPU_ISA=portable) on the portable one.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "bk/dtype.h"
#include "bk/ops.h"
#include "bk/quant.h"
#include "cpu_graph_util.h"
#include "devices/cpu/cpu_backend.h"
#include "devices/cpu/kernels/dispatch.h"
#include "devices/cpu/kernels/mul_mat_quant.h"
#include "devices/cpu/kernels/quant_type.h"

namespace bk {
namespace {

std::vector<CpuIsa> tiers() {
  std::vector<CpuIsa> out;
  for (CpuIsa isa : {CpuIsa::portable, CpuIsa::avx2, CpuIsa::avx512, CpuIsa::amx}) {
    if (cpu_isa_available(isa)) out.push_back(isa);
  }
  return out;
}

std::vector<float> random_floats(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

class CpuTier : public testing::TestWithParam<CpuIsa> {
 protected:
  const CpuKernels& k() const { return cpu_kernels(GetParam()); }
  const CpuKernels& portable() const { return cpu_kernels(CpuIsa::portable); }
};

TEST_P(CpuTier, ElementwiseLoopsMatchPortableAtEveryTailLength) {
  for (int64_t n = 0; n < 70; ++n) {
    const auto a = random_floats(static_cast<size_t>(n), -6, 6, 1),
               b = random_floats(static_cast<size_t>(n), -3, 3, 2);
    std::vector<float> r(static_cast<size_t>(n) + 1, 42.0f), want(static_cast<size_t>(n) + 1, 42.0f);
    k().add(a.data(), b.data(), r.data(), n);
    portable().add(a.data(), b.data(), want.data(), n);
    EXPECT_EQ(r, want) << "add n=" << n;
    k().scale_add(a.data(), 0.5f, b.data(), r.data(), n);
    for (int64_t i = 0; i < n; ++i)
      EXPECT_NEAR(r[static_cast<size_t>(i)], a[static_cast<size_t>(i)] * 0.5f + b[static_cast<size_t>(i)],
                  1e-6f);
    k().silu(a.data(), r.data(), n);
    portable().silu(a.data(), want.data(), n);
    for (int64_t i = 0; i < n; ++i)
      EXPECT_NEAR(r[static_cast<size_t>(i)], want[static_cast<size_t>(i)],
                  2e-6f * (1 + std::fabs(want[static_cast<size_t>(i)])));
    k().gelu(a.data(), r.data(), n);
    portable().gelu(a.data(), want.data(), n);
    for (int64_t i = 0; i < n; ++i)
      EXPECT_NEAR(r[static_cast<size_t>(i)], want[static_cast<size_t>(i)],
                  2e-6f * (1 + std::fabs(want[static_cast<size_t>(i)])));
    EXPECT_EQ(r[static_cast<size_t>(n)], 42.0f) << "wrote past the end, n=" << n;
    if (n > 0) {
      EXPECT_EQ(k().max(a.data(), n), portable().max(a.data(), n));
      EXPECT_NEAR(k().sum_squares(a.data(), n), portable().sum_squares(a.data(), n), 1e-4);
      EXPECT_NEAR(k().exp_sum(a.data(), 6.0f, r.data(), n),
                  portable().exp_sum(a.data(), 6.0f, want.data(), n), 1e-4);
    }
  }
}

TEST_P(CpuTier, ExpOfMinusInfinityIsZero) {
  const float a[3] = {-std::numeric_limits<float>::infinity(), 0.0f, -std::numeric_limits<float>::infinity()};
  float r[3];
  EXPECT_DOUBLE_EQ(k().exp_sum(a, 0.0f, r, 3), 1.0);
  EXPECT_EQ(r[0], 0.0f);
  EXPECT_EQ(r[2], 0.0f);
}

TEST_P(CpuTier, ConversionsRoundLikeCore) {
  // Ties, subnormals, overflow to infinity, infinities and NaN among random values.
  std::vector<float> v = random_floats(300, -70000, 70000, 3);
  for (float x :
       {0.0f, -0.0f, 1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 1.0f + 0x1p-8f, 3e-8f, 6e-5f, 65519.0f, 65520.0f,
        1e30f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()}) {
    v.push_back(x);
  }
  const int64_t n = static_cast<int64_t>(v.size());
  std::vector<uint16_t> h(v.size()), b(v.size());
  k().f32_to_f16(v.data(), h.data(), n);
  k().f32_to_bf16(v.data(), b.data(), n);
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(h[i], f32_to_f16(v[i])) << v[i];
    EXPECT_EQ(b[i], f32_to_bf16(v[i])) << v[i];
  }
  std::vector<float> back(v.size());
  k().f16_to_f32(h.data(), back.data(), n);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(back[i], f16_to_f32(h[i]));
  k().bf16_to_f32(b.data(), back.data(), n);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(back[i], bf16_to_f32(b[i]));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  k().f32_to_f16(&nan, h.data(), 1);
  k().f32_to_bf16(&nan, b.data(), 1);
  EXPECT_TRUE(std::isnan(f16_to_f32(h[0])));
  EXPECT_TRUE(std::isnan(bf16_to_f32(b[0])));
}

// Whether mul_mat rounds its operands to bf16 first: the amx tier's AMX path (bf16 weights, or
// quantized ones decoded to bf16; more than 32 columns, or 192 for the types with integer tiles;
// op_mul_mat.cpp), whose products are then exact and summed in f32.
bool rounds_to_bf16(CpuIsa isa, DType wtype, int64_t n) {
  if (isa != CpuIsa::amx || (wtype != DType::BF16 && !is_quantized(wtype))) return false;
  const bool tiles =
      is_quantized(wtype) && cpu_kernels(isa).quant_tile.decode[static_cast<int>(quant_type(wtype))];
  return n > (tiles ? 192 : 32);
}
float bf16_rounded(float v) { return bf16_to_f32(f32_to_bf16(v)); }

// mul_mat through the backend on this tier, against a double-precision product (of the
// bf16-rounded activations where the path rounds them), on sizes that take the dot-product path
// (n <= 32), the packed GEMM and the AMX path (n > 32), with edge tiles.
void check_mul_mat(CpuIsa isa, DType wtype, int64_t m, int64_t n, int64_t k, int threads) {
  GraphBuilder g;
  Tensor& w = g.weight(wtype, {k, m, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {k, n, 1, 1}, "x");
  Tensor& r = ops::mul_mat(g, w, x);
  Graph graph = g.build({&r});
  test::CpuGraph placed(graph);
  const auto wv = random_floats(static_cast<size_t>(k * m), -1, 1, 5),
             xv = random_floats(static_cast<size_t>(k * n), -1, 1, 6);
  for (int64_t i = 0; i < k * m; ++i) test::CpuGraph::set(w, i, wv[static_cast<size_t>(i)]);
  for (int64_t i = 0; i < k * n; ++i) test::CpuGraph::set(x, i, xv[static_cast<size_t>(i)]);
  auto backend = test::cpu_device().init_backend();
  auto& cpu = dynamic_cast<CpuBackend&>(*backend);
  cpu.set_isa(isa);
  cpu.set_threads(threads);
  backend->compute(graph);
  const bool bf16_x = rounds_to_bf16(isa, wtype, n);
  double err = 0, norm = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      double want = 0;
      for (int64_t t = 0; t < k; ++t) {
        const float xs = test::CpuGraph::get(x, j * k + t);
        want += static_cast<double>(test::CpuGraph::get(w, i * k + t)) * (bf16_x ? bf16_rounded(xs) : xs);
      }
      const double got = test::CpuGraph::get(r, j * m + i);
      ASSERT_TRUE(std::isfinite(got)) << "unwritten or non-finite at " << i << "," << j;
      err += (got - want) * (got - want);
      norm += want * want;
    }
  }
  EXPECT_LT(err / norm, 1e-10) << cpu_isa_name(isa) << " " << dtype_name(wtype) << " " << m << "x" << n << "x"
                               << k;
}

TEST_P(CpuTier, MulMatMatchesDoubleOnBothPaths) {
  for (DType wt : {DType::F32, DType::F16, DType::BF16}) {
    check_mul_mat(GetParam(), wt, 37, 5, 300, 2);  // dot-product path
    check_mul_mat(GetParam(), wt, 45, 31, 77, 2);  // dot-product path, every column-group remainder
    // The dot path in chunks of 32 columns without AMX up to 64 columns (f16, bf16) or 128 (f32),
    // else the GEMM or AMX.
    check_mul_mat(GetParam(), wt, 70, 45, 300, 2);    // GEMM / AMX, edge tiles both ways, two k blocks
    check_mul_mat(GetParam(), wt, 100, 40, 2100, 2);  // GEMM: eleven k blocks; AMX: 5 k passes, k edge
    check_mul_mat(GetParam(), wt, 300, 110, 65, 3);   // several compute blocks, k not a tile multiple
    check_mul_mat(GetParam(), wt, 45, 33, 77, 1);     // odd k (a half-filled bf16 pair), one thread
    check_mul_mat(GetParam(), wt, 64, 96, 1100, 2);   // AMX in place (multiples of 32), 3 k passes
    check_mul_mat(GetParam(), wt, 600, 40, 33, 2);    // AMX: several W blocks
    // Every weight type on the GEMM or AMX (f32 past 128 columns).
    check_mul_mat(GetParam(), wt, 70, 145, 300, 2);  // edge tiles both ways, two k blocks
    check_mul_mat(GetParam(), wt, 300, 150, 65, 3);  // several compute blocks, k not a tile multiple
  }
}

// The decode paths (2-32 columns; f32 at 5-32 columns on the avx512 tiers and 5-16 on avx2
// packed with phases 2 or 1, the rest dot tiles): every column-group remainder, rows that are not a multiple
// of a tile or block, and k below, at and past the 16-wide steps and the 512- and 1024-long chunks (avx512,
// avx2).
TEST_P(CpuTier, MulMatDecodeEdgesMatchDouble) {
  for (int64_t n : {2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 22, 24, 25, 31, 32}) {
    check_mul_mat(GetParam(), DType::F32, 21, n, 33, 2);
    check_mul_mat(GetParam(), DType::F32, 13, n, 7, 1);
  }
  for (int64_t n : {2, 6, 8, 11, 32}) check_mul_mat(GetParam(), DType::F32, 19, n, 4097, 2);
  for (DType wt : {DType::F16, DType::BF16}) {
    for (int64_t n : {3, 8, 13}) check_mul_mat(GetParam(), wt, 11, n, 1041, 2);
  }
  check_mul_mat(GetParam(), DType::F32, 67, 8, 1024, 2);  // whole chunks, no k tail, 4 blocks + 3 rows
}

// The gemv entry itself, past what op_mul_mat gives it (32 columns): 41 columns (32 + 8 + 1,
// so a slice on each path), padded strides, against double.
TEST_P(CpuTier, GemvEntryTakesAnyColumnCount) {
  const size_t m = 37, n = 41, depth = 1043, w_row = depth + 5, x_row = depth + 3, ldc = m + 2;
  const auto w = random_floats(m * w_row, -1, 1, 11);
  const auto x = random_floats(n * x_row, -1, 1, 12);
  std::vector<float> c(n * ldc, std::numeric_limits<float>::quiet_NaN());
  const auto as_i64 = [](size_t v) { return static_cast<int64_t>(v); };
  k().gemv[static_cast<int>(WeightType::f32)](w.data(), w_row * sizeof(float), as_i64(m), x.data(),
                                              as_i64(x_row), as_i64(n), as_i64(depth), c.data(), as_i64(ldc));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < m; ++j) {
      double want = 0;
      for (size_t t = 0; t < depth; ++t) want += double{w[j * w_row + t]} * x[i * x_row + t];
      EXPECT_NEAR(c[i * ldc + j], want, 1e-4) << "column " << i << ", row " << j;
    }
  }
}

// The packed-column entry itself, at column counts op_mul_mat does not route to it as well:
// every column count each packing holds (1-32 columns with phases 1, 1-24 with phases 2),
// padded strides, several k (with tails that are not whole vectors), rows past
// the last whole tile, against double.
TEST_P(CpuTier, PackedGemvMatchesDoubleAtEveryColumnCount) {
  const GemvPackedFns& p = k().gemv_packed;
  if (p.pack == nullptr)
    GTEST_SKIP() << cpu_isa_name(GetParam()) << " has no packed gemv (the avx2 and avx512 tiers have one)";
  EXPECT_GT(p.max_columns, 4);  // op_mul_mat gives it 5 columns and more, up to max_columns
  EXPECT_LE(p.max_columns, kPackedMaxColumns);
  const size_t m = 37, max_depth = 1043, w_row = max_depth + 5, x_row = max_depth + 3, ldc = m + 2;
  auto w = random_floats(m * w_row, -1, 1, 21);
  // Past the longest k, each W row's padding is NaN: a kernel that reads weights past k into its
  // last vector (times X's zero padding) must not let them in.
  for (size_t j = 0; j < m; ++j) {
    std::fill(w.begin() + static_cast<std::ptrdiff_t>(j * w_row + max_depth),
              w.begin() + static_cast<std::ptrdiff_t>((j + 1) * w_row),
              std::numeric_limits<float>::quiet_NaN());
  }
  const auto x = random_floats(size_t{kPackedMaxColumns} * x_row, -1, 1, 22);
  const auto as_i64 = [](size_t v) { return static_cast<int64_t>(v); };
  for (int phases : {1, 2}) {
    const size_t group = size_t{kPackedLanes} / static_cast<size_t>(phases);
    const size_t max_n = phases == 1 ? size_t{kPackedMaxColumns} : 24;
    // k: 16-wide steps with a tail, across one 128-long chunk, only a tail, and nothing.
    for (size_t depth : {max_depth, size_t{130}, size_t{7}, size_t{0}}) {
      const size_t vectors = (depth + static_cast<size_t>(phases) - 1) / static_cast<size_t>(phases);
      for (size_t n = 1; n <= max_n; ++n) {
        const size_t groups = (n + group - 1) / group;
        std::vector<float> xt(groups * size_t{kPackedLanes} * vectors,
                              std::numeric_limits<float>::quiet_NaN());
        p.pack(x.data(), as_i64(x_row), as_i64(n), as_i64(depth), phases, xt.data());
        std::vector<float> c(n * ldc, std::numeric_limits<float>::quiet_NaN());
        p.gemv_f32(w.data(), w_row * sizeof(float), as_i64(m), xt.data(), as_i64(n), as_i64(depth), phases,
                   c.data(), as_i64(ldc));
        const auto where = [&] { return fmt::format("phases {}, k {}, {} columns", phases, depth, n); };
        for (size_t i = 0; i < n; ++i) {
          for (size_t j = 0; j < m; ++j) {
            double want = 0;
            for (size_t t = 0; t < depth; ++t) want += double{w[j * w_row + t]} * x[i * x_row + t];
            ASSERT_NEAR(c[i * ldc + j], want, 1e-4) << where() << ": column " << i << ", row " << j;
          }
          for (size_t j = m; j < ldc; ++j) {  // the gaps between C's rows are not written
            ASSERT_TRUE(std::isnan(c[i * ldc + j])) << where();
          }
        }
      }
    }
  }
}

// Quantized weights through the backend on this tier: W encoded from random floats, the
// reference the double-precision product of the decoded W (dequantize_row) and the f32 X (both
// rounded to bf16 where the AMX path rounds them). The fused kernels (1-7 columns) quantize X to
// 16 bits, which costs ~1e-10 of NMSE; 1e-8 still fails any decoding mistake (a wrong scale,
// nibble or offset is an error of order 1). Wider X takes decoded rows and the f32 paths.
double quant_mul_mat_nmse(CpuIsa isa, DType wtype, int64_t m, int64_t n, int64_t k) {
  GraphBuilder g;
  Tensor& w = g.weight(wtype, {k, m, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {k, n, 1, 1}, "x");
  Tensor& r = ops::mul_mat(g, w, x);
  Graph graph = g.build({&r});
  test::CpuGraph placed(graph);
  const auto wv = random_floats(static_cast<size_t>(k * m), -1, 1, 31),
             xv = random_floats(static_cast<size_t>(k * n), -1, 1, 32);
  quantize_row(wtype, wv.data(), w.data, k * m);
  std::vector<float> decoded(static_cast<size_t>(k * m));
  dequantize_row(wtype, w.data, decoded.data(), k * m);
  for (int64_t i = 0; i < k * n; ++i) test::CpuGraph::set(x, i, xv[static_cast<size_t>(i)]);
  auto backend = test::cpu_device().init_backend();
  auto& cpu = dynamic_cast<CpuBackend&>(*backend);
  cpu.set_isa(isa);
  cpu.set_threads(2);
  backend->compute(graph);
  const bool bf16 = rounds_to_bf16(isa, wtype, n);
  double err = 0, norm = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      double want = 0;
      for (int64_t t = 0; t < k; ++t) {
        const float wt = decoded[static_cast<size_t>(i * k + t)], xt = xv[static_cast<size_t>(j * k + t)];
        want += bf16 ? double{bf16_rounded(wt)} * bf16_rounded(xt) : double{wt} * xt;
      }
      const double got = test::CpuGraph::get(r, j * m + i);
      if (!std::isfinite(got)) return std::numeric_limits<double>::infinity();  // unwritten
      err += (got - want) * (got - want);
      norm += want * want;
    }
  }
  return err / norm;
}

// Every weight type; rows past the 64-row tasks and the 256-row panels; k with an odd number of
// the kernels' units (the avx2 loop takes two at a time); each column count the avx2 kernels
// group differently (1-4, 5 = 4 + 1, 7 = 4 + 3), and past the fused kernels the integer tiles
// where the tier has them (13: one group, part empty; 40 = 32 + 8; 7 blocks: a chunk of 4 and a
// rest; 300 rows: a part-empty row group) up to 192 columns with AMX (193: the AMX GEMM), else
// rows decoded by each task for the f32 dot path (8, 13, 32; without AMX also in chunks of 32
// columns up to 512: 40, 70, 193) and panels for the GEMM (513; 40, 70, 193 with AMX).
TEST_P(CpuTier, QuantizedMulMatMatchesDecodedWeights) {
  for (DType wt : {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K}) {
    const int64_t k = dtype_block(wt) == 256 ? 768 : 224;  // 3 super blocks, 7 blocks
    for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 13, 32, 40, 70, 193, 513}) {
      const int64_t m = n <= 32 ? 300 : 70;
      EXPECT_LT(quant_mul_mat_nmse(GetParam(), wt, m, n, k), 1e-8)
          << cpu_isa_name(GetParam()) << " " << dtype_name(wt) << " " << m << "x" << n << "x" << k;
    }
  }
  EXPECT_LT(quant_mul_mat_nmse(GetParam(), DType::Q4_0, 300, 513, 64), 1e-8) << "two panels (or tasks)";
}

// Column 0 of x holds a NaN: every result of column 0 is NaN, every other one finite.
void check_nan_column(CpuIsa isa, int64_t n) {
  const int64_t m = 5, k = 64;
  GraphBuilder g;
  Tensor& w = g.weight(DType::Q4_0, {k, m, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {k, n, 1, 1}, "x");
  Tensor& r = ops::mul_mat(g, w, x);
  Graph graph = g.build({&r});
  test::CpuGraph placed(graph);
  const auto wv = random_floats(static_cast<size_t>(k * m), -1, 1, 51);
  quantize_row(DType::Q4_0, wv.data(), w.data, k * m);
  for (int64_t i = 0; i < k * n; ++i) test::CpuGraph::set(x, i, i == 40 ? std::nan("") : 0.5);
  auto backend = test::cpu_device().init_backend();
  dynamic_cast<CpuBackend&>(*backend).set_isa(isa);
  backend->compute(graph);
  for (int64_t i = 0; i < m; ++i) {
    EXPECT_TRUE(std::isnan(test::CpuGraph::get(r, i))) << n << " columns, row " << i;
    for (int64_t j = 1; j < n; ++j)
      EXPECT_TRUE(std::isfinite(test::CpuGraph::get(r, j * m + i)))
          << n << " columns, row " << i << " column " << j;
  }
}

// A NaN activation reaches every result of its column, and no other: the 16-bit quantization
// must not turn it into a number, on the fused kernels (2 columns) or the tiles (20).
TEST_P(CpuTier, QuantizedMulMatPropagatesNaN) {
  for (int64_t n : {2, 20}) check_nan_column(GetParam(), n);
}

// The fused entries themselves, on this tier, agree with the portable ones on the same quantized
// X (the same integers; only the order of float additions differs), with padded strides, over
// rows of whole groups of eight blocks (512), of more than one 1024-block segment (33024) and
// with a rest of one group and one block after a segment (33056, the 32-element types).
void check_gemv_entries(const CpuKernels& tier, int64_t depth) {
  const int64_t m = 19, n = 6, w_pad = 7, x_pad = 3, ldc = m + 2;
  const auto xv = random_floats(static_cast<size_t>(n * depth), -2, 2, 41);
  const int64_t x_stride = x_row_units(depth / kXBlock) + x_pad;
  std::vector<XBlock16> xq(static_cast<size_t>(n * x_stride));
  const DType types[] = {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K};
  for (int t = 0; t < kQuantTypeCount; ++t) {
    if (depth % dtype_block(types[t]) != 0) continue;
    for (int64_t i = 0; i < n; ++i) {
      cpu_quantize_x16(xv.data() + i * depth, depth, x16_blocks_per_scale(types[t]),
                       xq.data() + i * x_stride);
    }
    const size_t row_bytes =
        static_cast<size_t>(depth / dtype_block(types[t])) * dtype_size(types[t]) + w_pad;
    const auto wv = random_floats(static_cast<size_t>(m * depth), -1, 1, 42);
    std::vector<uint8_t> w(static_cast<size_t>(m) * row_bytes);
    for (int64_t j = 0; j < m; ++j)
      quantize_row(types[t], wv.data() + j * depth, w.data() + j * row_bytes, depth);
    std::vector<float> got(static_cast<size_t>(n * ldc), std::numeric_limits<float>::quiet_NaN()), want = got;
    // The tier's own activation layout, where it has one; portable reads the blocks as they are.
    std::vector<XBlock16> xt = xq;
    if (tier.gemv_quant_x[t] != nullptr) {
      for (int64_t i = 0; i < n; ++i) tier.gemv_quant_x[t](xt.data() + i * x_stride, depth / kXBlock);
    }
    tier.gemv_quant[t](w.data(), row_bytes, m, xt.data(), x_stride, n, depth, got.data(), ldc);
    cpu_kernels(CpuIsa::portable)
        .gemv_quant[t](w.data(), row_bytes, m, xq.data(), x_stride, n, depth, want.data(), ldc);
    for (int64_t i = 0; i < n; ++i) {
      // Rounding differences grow with the column's magnitude, not with each result's: a result
      // near zero is a sum of terms as large as the others.
      double squares = 0;
      for (int64_t j = 0; j < m; ++j) squares += std::pow(want[static_cast<size_t>(i * ldc + j)], 2);
      const double tolerance = 2e-5 * std::sqrt(squares / static_cast<double>(m));
      for (int64_t j = 0; j < ldc; ++j) {
        const float a = got[static_cast<size_t>(i * ldc + j)], b = want[static_cast<size_t>(i * ldc + j)];
        if (j >= m) {
          EXPECT_TRUE(std::isnan(a)) << "wrote past row " << m;  // C's gaps stay as they were
        } else {
          EXPECT_NEAR(a, b, tolerance)
              << dtype_name(types[t]) << " depth " << depth << " column " << i << " row " << j;
        }
      }
    }
  }
}

TEST_P(CpuTier, QuantizedGemvEntriesMatchPortable) {
  for (int64_t depth : {512, 33024, 33056}) check_gemv_entries(k(), depth);
}

// The largest products the k-quants' super blocks can hold, every activation 32767: kernels that
// sum a super block in integers must not overflow. q4_k: every weight 15, every scale 63; q6_k:
// every weight 0 (-32 after its offset), every scale -128.
TEST_P(CpuTier, QuantizedGemvEntriesHoldTheLargestSuperBlockSums) {
  struct Case {
    DType type;
    size_t d_at;  // where the f16 d = 1 goes; every other byte is `fill`
    uint8_t fill;
    size_t scales_at;  // q6_k's int8 scales, set to -128
    float weight;      // every weight's value
  };
  const Case cases[] = {{DType::Q4_K, 0, 0xFF, 0, 15.0f * 63.0f}, {DType::Q6_K, 208, 0x00, 192, 4096.0f}};
  const int64_t depth = 1024, blocks = depth / kXBlock;
  for (const Case& c : cases) {
    const auto bytes = static_cast<size_t>(dtype_size(c.type));
    std::vector<uint8_t> w(static_cast<size_t>(depth / 256) * bytes, c.fill);
    for (size_t b = 0; b < w.size(); b += bytes) {
      if (c.type == DType::Q4_K) w[b + 2] = w[b + 3] = 0x00;  // dmin = 0
      if (c.type == DType::Q6_K) std::fill_n(w.begin() + static_cast<ptrdiff_t>(b + c.scales_at), 16, 0x80);
      w[b + c.d_at] = 0x00, w[b + c.d_at + 1] = 0x3C;
    }
    const std::vector<float> xv(static_cast<size_t>(depth), -3.0f);
    std::vector<XBlock16> x(static_cast<size_t>(x_row_units(blocks)));
    cpu_quantize_x16(xv.data(), depth, x16_blocks_per_scale(c.type), x.data());
    const int t = static_cast<int>(quant_type(c.type));
    if (k().gemv_quant_x[t] != nullptr) k().gemv_quant_x[t](x.data(), blocks);
    float got = 0;
    k().gemv_quant[t](w.data(), w.size(), 1, x.data(), x_row_units(blocks), 1, depth, &got, 1);
    EXPECT_FLOAT_EQ(got, -3.0f * c.weight * static_cast<float>(depth)) << dtype_name(c.type);
  }
}

// The largest sums the integer tiles' blocks can hold (16 columns through the backend), every
// activation at the largest code: q8_0 every weight -128, q4_0 every code 0 (-8), q6_k every
// weight 0 (-32) under scales of -128 (4096; its activations one bit shorter, tile_x_max). With
// q6_k's activations at 32767 its sums would overflow int32.
TEST_P(CpuTier, QuantizedTilesHoldTheLargestBlockSums) {
  struct Case {
    DType type;
    size_t d_at;  // where the f16 d = 1 goes; every other byte is `fill`
    uint8_t fill;
    float weight;  // every weight's value
  };
  const Case cases[] = {
      {DType::Q8_0, 0, 0x80, -128.0f}, {DType::Q4_0, 0, 0x00, -8.0f}, {DType::Q6_K, 208, 0x00, 4096.0f}};
  const int64_t k = 1024, m = 3, n = 16;
  for (const Case& c : cases) {
    GraphBuilder g;
    Tensor& w = g.weight(c.type, {k, m, 1, 1}, "w");
    Tensor& x = g.input(DType::F32, {k, n, 1, 1}, "x");
    Tensor& r = ops::mul_mat(g, w, x);
    Graph graph = g.build({&r});
    test::CpuGraph placed(graph);
    const auto bytes = static_cast<size_t>(dtype_size(c.type));
    auto* wb = static_cast<uint8_t*>(w.data);
    std::fill_n(wb, w.nbytes(), c.fill);
    for (size_t b = 0; b < w.nbytes(); b += bytes) {
      if (c.type == DType::Q6_K) std::fill_n(wb + b + 192, 16, 0x80);  // scales -128
      wb[b + c.d_at] = 0x00, wb[b + c.d_at + 1] = 0x3C;
    }
    for (int64_t i = 0; i < k * n; ++i) test::CpuGraph::set(x, i, -3.0);
    auto backend = test::cpu_device().init_backend();
    dynamic_cast<CpuBackend&>(*backend).set_isa(GetParam());
    backend->compute(graph);
    for (int64_t i = 0; i < m * n; ++i) {
      EXPECT_FLOAT_EQ(static_cast<float>(test::CpuGraph::get(r, i)), -3.0f * c.weight * static_cast<float>(k))
          << dtype_name(c.type) << " result " << i;
    }
  }
}

// Against k-quant weights a super block's eight activation blocks share one scale (their kernels
// sum a super block in integers); against the 32-element types each block has its own. A NaN or
// infinity makes the scale of every block that shares it NaN.
TEST(CpuQuantizeX16, BlocksShareTheScaleOfTheirSuperBlockAgainstKQuants) {
  const int64_t depth = 512;
  std::vector<float> xv = random_floats(static_cast<size_t>(depth), -1, 1, 7);
  xv[300] = 4.0f;  // block 9, super block 1
  for (DType type : {DType::Q4_0, DType::Q4_K}) {
    const int64_t per_scale = x16_blocks_per_scale(type);
    const int64_t blocks = depth / kXBlock;
    std::vector<XBlock16> x(static_cast<size_t>(x_row_units(blocks)));
    cpu_quantize_x16(xv.data(), depth, per_scale, x.data());
    const XBlockScale* scales = x_scales(x.data(), blocks);
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t first = b / per_scale * per_scale * kXBlock, last = first + per_scale * kXBlock;
      float amax = 0;
      for (int64_t i = first; i < last; ++i) amax = std::max(amax, std::fabs(xv[static_cast<size_t>(i)]));
      const XBlock16& block = x[static_cast<size_t>(b)];
      const float d = scales[b].d;
      EXPECT_FLOAT_EQ(d, amax / 32767.0f) << dtype_name(type) << " block " << b;
      int32_t sum = 0;
      for (int64_t i = 0; i < kXBlock; ++i) {
        sum += block.q[i];
        EXPECT_NEAR(d * block.q[i], xv[static_cast<size_t>(b * kXBlock + i)], 0.5001 * d)
            << dtype_name(type) << " block " << b << " element " << i;
      }
      EXPECT_EQ(scales[b].qsum, sum) << dtype_name(type) << " block " << b;
    }
    xv[40] = std::numeric_limits<float>::infinity();  // block 1, super block 0
    cpu_quantize_x16(xv.data(), depth, per_scale, x.data());
    xv[40] = 0.5f;
    for (int64_t b = 0; b < blocks; ++b) {
      EXPECT_EQ(std::isnan(scales[b].d), b / per_scale == 1 / per_scale)
          << dtype_name(type) << " block " << b;
    }
  }
}

// The tier's row decoders give core's bits for any block: random bytes are a valid block of every
// type, and they reach every code, every scale sign and f16 scales that are subnormal, infinite
// or NaN (NaN compares as NaN: the payload is not part of the contract).
TEST_P(CpuTier, DequantizedRowsAreCoresBits) {
  const DType types[] = {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K};
  for (int t = 0; t < kQuantTypeCount; ++t) {
    const DequantizeFn decode = k().dequantize[t];
    if (decode == nullptr) {
      EXPECT_EQ(GetParam(), CpuIsa::portable) << "only the portable tier leaves decoding to core";
      continue;
    }
    const int64_t blocks = 300, n = blocks * dtype_block(types[t]);
    std::vector<uint8_t> bytes(static_cast<size_t>(blocks) * dtype_size(types[t]));
    std::mt19937 rng(77u + static_cast<uint32_t>(t));
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    std::vector<float> got(static_cast<size_t>(n) + 1, 42.0f), want(static_cast<size_t>(n));
    decode(bytes.data(), got.data(), n);
    dequantize_row(types[t], bytes.data(), want.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      const float a = got[static_cast<size_t>(i)], b = want[static_cast<size_t>(i)];
      if (std::isnan(b)) {
        EXPECT_TRUE(std::isnan(a)) << dtype_name(types[t]) << " element " << i;
      } else {
        EXPECT_EQ(std::bit_cast<uint32_t>(a), std::bit_cast<uint32_t>(b))
            << dtype_name(types[t]) << " element " << i << ": " << a << " against " << b;
      }
    }
    EXPECT_EQ(got.back(), 42.0f) << dtype_name(types[t]) << ": wrote past n";
  }
}

INSTANTIATE_TEST_SUITE_P(Available, CpuTier, testing::ValuesIn(tiers()),
                         [](const testing::TestParamInfo<CpuIsa>& p) {
                           return std::string(cpu_isa_name(p.param));
                         });

TEST(CpuTiers, AmxIsTestedOrSkippedWithAReason) {
  if (!cpu_isa_available(CpuIsa::amx)) {
    GTEST_SKIP() << "no amx tier here: "
                 << fmt::format("{}", fmt::join(cpu_isa_missing_features(CpuIsa::amx), ", "));
  }
  // The default tier is the best one, so the conformance suite runs the AMX path here too.
  EXPECT_EQ(cpu_best_isa(), CpuIsa::amx);
}

TEST(CpuTiers, Avx512IsTestedOrSkippedWithAReason) {
  if (!cpu_isa_available(CpuIsa::avx512)) {
    GTEST_SKIP() << "no avx512 tier here: "
                 << (cpu_isa_missing_features(CpuIsa::avx512).empty() ? "this build does not compile one"
                                                                      : "the CPU lacks some of its features");
  }
  SUCCEED() << "avx512 runs in CpuTier/Available.avx512";
}

}  // namespace
}  // namespace bk
