// SPDX-License-Identifier: MIT
// CUDA compute paths the conformance suite does not single out: each MUL_MAT route (one folded
// GEMM, batched GEMM with grouped-query broadcasting, packing of non-contiguous operands,
// TF32), element-wise work on views, and refusing tensors outside the GPU. Needs a GPU.

#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "bk/error.h"
#include "bk/ops.h"
#include "cuda_test_util.h"

namespace bk {
namespace {

using cuda_test::CudaDeviceTest;

std::vector<float> random_values(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Writes float values (logical order) into a packed leaf, converted to its dtype; returns the
// values as stored.
std::vector<float> set_leaf(Tensor& t, const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * dtype_size(t.type));
  convert(DType::F32, values.data(), t.type, bytes.data(), values.size());
  t.buffer->set_tensor(t, bytes.data(), 0, bytes.size());
  std::vector<float> stored(values.size());
  convert(t.type, bytes.data(), DType::F32, stored.data(), values.size());
  return stored;
}

std::vector<float> get_f32(const Tensor& t) {
  std::vector<float> out(static_cast<size_t>(t.nelements()));
  t.buffer->get_tensor(t, out.data(), 0, t.nbytes());
  return out;
}

double nmse(const std::vector<float>& got, const std::vector<double>& want) {
  double err = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    err += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return err / norm;
}

// ops.h's mul_mat on logical values: w [K, M, B2, B3], x [K, N, C2, C3] (x given as a function
// of its logical index so that views can be described).
std::vector<double> reference_mul_mat(const std::vector<float>& w, const Shape& wn,
                                      const std::vector<float>& x, const Shape& xn) {
  const int64_t K = wn[0], M = wn[1], N = xn[1], C2 = xn[2], C3 = xn[3];
  const int64_t r2 = C2 / wn[2], r3 = C3 / wn[3];
  std::vector<double> r(static_cast<size_t>(M * N * C2 * C3));
  for (int64_t c3 = 0; c3 < C3; ++c3)
    for (int64_t c2 = 0; c2 < C2; ++c2)
      for (int64_t n = 0; n < N; ++n)
        for (int64_t m = 0; m < M; ++m) {
          double s = 0;
          const int64_t wb = ((c3 / r3) * wn[2] + c2 / r2) * M * K + m * K;
          const int64_t xb = ((c3 * C2 + c2) * N + n) * K;
          for (int64_t k = 0; k < K; ++k) s += double(w[size_t(wb + k)]) * double(x[size_t(xb + k)]);
          r[size_t(((c3 * C2 + c2) * N + n) * M + m)] = s;
        }
  return r;
}

struct MulMatCase {
  std::string name;
  DType wtype;
  Shape w, x;
  bool x_transposed;  // x is the transpose of a [N, K, C2, C3] leaf
  double limit;
};

void PrintTo(const MulMatCase& c, std::ostream* os) { *os << c.name; }

class CudaMulMatTest : public CudaDeviceTest, public testing::WithParamInterface<MulMatCase> {};

TEST_P(CudaMulMatTest, MatchesTheReference) {
  const MulMatCase& c = GetParam();
  GraphBuilder g;
  Tensor& w = g.weight(c.wtype, c.w, "w");
  Tensor& leaf = g.input(DType::F32, c.x_transposed ? Shape{c.x[1], c.x[0], c.x[2], c.x[3]} : c.x, "x");
  Tensor& x = c.x_transposed ? ops::transpose(g, leaf) : leaf;
  Tensor& r = ops::mul_mat(g, w, x);
  Graph graph = g.build({&r});
  ASSERT_TRUE(device().supports_op(r)) << device().unsupported_reason(r);
  auto buffer = cuda_test::place_graph(device().buffer_type(), graph);
  buffer->clear(0xFF);
  const std::vector<float> wv = set_leaf(w, random_values(size_t(w.nelements()), 1));
  std::vector<float> leaf_values = set_leaf(leaf, random_values(size_t(leaf.nelements()), 2));
  std::vector<float> xv = leaf_values;
  if (c.x_transposed) {  // logical order of x = transpose(leaf)
    const int64_t K = c.x[0], N = c.x[1];
    for (int64_t b = 0; b < c.x[2] * c.x[3]; ++b)
      for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k)
          xv[size_t((b * N + n) * K + k)] = leaf_values[size_t((b * K + k) * N + n)];
  }
  auto backend = device().init_backend();
  backend->compute(graph);
  backend->synchronize();
  const double e = nmse(get_f32(r), reference_mul_mat(wv, c.w, xv, c.x));
  EXPECT_LT(e, c.limit);
}

INSTANTIATE_TEST_SUITE_P(
    Routes, CudaMulMatTest,
    testing::Values(MulMatCase{"f32_one_gemm", DType::F32, {96, 40, 1, 1}, {96, 33, 1, 1}, false, 1e-10},
                    MulMatCase{"f32_batches_folded", DType::F32, {96, 40, 1, 1}, {96, 7, 3, 2}, false, 1e-10},
                    MulMatCase{"bf16_gqa_broadcast", DType::BF16, {64, 24, 2, 1}, {64, 5, 4, 3}, false, 5e-5},
                    MulMatCase{"f16_batched", DType::F16, {80, 17, 3, 1}, {80, 9, 3, 1}, false, 5e-6},
                    MulMatCase{"f16_packed_x", DType::F16, {48, 31, 1, 1}, {48, 20, 1, 1}, true, 5e-6},
                    MulMatCase{
                        "f32_packed_x_batched", DType::F32, {33, 12, 2, 1}, {33, 10, 2, 1}, true, 1e-10}),
    [](const testing::TestParamInfo<MulMatCase>& param) { return param.param.name; });

TEST_F(CudaDeviceTest, Tf32IsUsedOnlyWhenAsked) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::F32, {512, 64, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {512, 64, 1, 1}, "x");
  Tensor& r = ops::mul_mat(g, w, x);
  Graph graph = g.build({&r});
  auto buffer = cuda_test::place_graph(device().buffer_type(), graph);
  const auto wv = set_leaf(w, random_values(512 * 64, 3));
  const auto xv = set_leaf(x, random_values(512 * 64, 4));
  const auto want = reference_mul_mat(wv, w.ne, xv, x.ne);
  auto backend = device().init_backend();
  backend->compute(graph);
  backend->synchronize();
  const double full = nmse(get_f32(r), want);
  auto set_tf32 = reinterpret_cast<void (*)(Backend&, bool)>(device().reg().proc_address("cuda_set_tf32"));
  ASSERT_NE(set_tf32, nullptr);
  set_tf32(*backend, true);
  backend->compute(graph);
  backend->synchronize();
  const double tf32 = nmse(get_f32(r), want);
  EXPECT_LT(full, 1e-11);
  EXPECT_LT(tf32, 1e-6);
  EXPECT_GT(tf32, full) << "TF32 should be measurably less precise than F32";
}

TEST_F(CudaDeviceTest, ElementwiseOnViewsAndBroadcasts) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {6, 5, 4, 1}, "a");
  Tensor& b = g.input(DType::BF16, {6, 1, 4, 1}, "b");
  Tensor& t = ops::permute(g, a, {1, 0, 2, 3});  // [5, 6, 4]
  Tensor& sum = ops::add(g, a, b);
  Tensor& copied = ops::cast(g, t, DType::F16);
  Tensor& back = ops::cast(g, copied, DType::F32);
  Graph graph = g.build({&sum, &back});
  auto buffer = cuda_test::place_graph(device().buffer_type(), graph);
  buffer->clear(0xFF);
  const auto av = set_leaf(a, random_values(120, 5));
  const auto bv = set_leaf(b, random_values(24, 6));
  auto backend = device().init_backend();
  backend->compute(graph);
  backend->synchronize();
  const auto s = get_f32(sum);
  const auto p = get_f32(back);
  for (int64_t i2 = 0; i2 < 4; ++i2)
    for (int64_t i1 = 0; i1 < 5; ++i1)
      for (int64_t i0 = 0; i0 < 6; ++i0) {
        const size_t ai = size_t((i2 * 5 + i1) * 6 + i0);
        EXPECT_FLOAT_EQ(s[ai], av[ai] + bv[size_t(i2 * 6 + i0)]);
        // back[i1', i0', i2] with the permuted shape [5, 6, 4] holds a[i0', i1', i2]
        const float want = f16_to_f32(f32_to_f16(av[ai]));
        EXPECT_EQ(p[size_t((i2 * 6 + i0) * 5 + i1)], want);
      }
}

TEST_F(CudaDeviceTest, RefusesTensorsOutsideItsMemory) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {16, 1, 1, 1}, "host_a");
  Tensor& r = ops::silu(g, a);
  Graph graph = g.build({&r});
  auto host = cuda_test::place_graph(cuda_test::registry().device("CPU").buffer_type(), graph);
  auto backend = device().init_backend();
  try {
    backend->compute(graph);
    FAIL() << "computed on host memory";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    // It names the first tensor it finds in host memory (the node or its input) and where it is.
    const std::string what = e.what();
    EXPECT_TRUE(what.find("host_a") != std::string::npos || what.find("silu-1") != std::string::npos) << what;
    EXPECT_NE(what.find("in buffer type 'CPU', not in CUDA0's memory"), std::string::npos) << what;
  }
  backend->synchronize();  // the stream is still usable
}

}  // namespace
}  // namespace bk
