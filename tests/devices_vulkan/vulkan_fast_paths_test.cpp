// SPDX-License-Identifier: MIT
// The kernels' fast paths on shapes the conformance suite's cases (odd row lengths) do not
// reach, checked against host arithmetic: the element-wise vec4 row path (F32 rows of a
// multiple of 4 elements with a row-broadcast b, or a padded view), the flat vec4 kernels
// (same-shape contiguous F32, any row length) and the lane mul_mat kernel's register blocks
// (several row groups with a partial last one, the vec4 and scalar K loops, one column and a
// last single column), and mul_mat over a weight larger than one storage binding. CMake runs it
// with BK_VULKAN_MUL_MAT=lanes, so GPUs run the lane kernel too, and again with lanes-plain, the lane kernel
// without subgroup shuffles, and BK_VULKAN_TEXEL=0, so the flat kernels read storage buffers there and texel
// buffers in the first run (where the device has R32G32B32A32_SFLOAT texel buffers, as lavapipe does).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "bk/dtype.h"
#include "bk/ops.h"
#include "probe/device_details.h"
#include "vulkan_graph_util.h"
#include "vulkan_test_util.h"

namespace bk::test {
namespace {

std::vector<float> values(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 7;
  for (float& f : v) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    f = static_cast<float>(x % 2001) / 1000.0f - 1.0f;  // [-1, 1]
  }
  return v;
}

void run(Device& dev, Graph& g) {
  auto backend = dev.init_backend();
  backend->compute(g);
  backend->synchronize();
}

size_t mismatches(const std::vector<float>& got, const std::vector<double>& want, double tolerance) {
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i)
    wrong += std::abs(got[i] - want[i]) > tolerance * (1 + std::abs(want[i]));
  return wrong;
}

using Unary = std::function<Tensor&(GraphBuilder&, Tensor&)>;
using Binary = std::function<Tensor&(GraphBuilder&, Tensor&, Tensor&)>;

// a: 64 x 3 x 2 (rows of 16 vec4s); b: 64 x b_rows x 2, broadcast over a's rows.
void check_binary(Device& dev, const Binary& op, const std::function<double(double, double)>& ref,
                  int64_t b_rows) {
  GraphBuilder b;
  Tensor& x = b.input(DType::F32, {64, 3, 2, 1}, "x");
  Tensor& y = b.input(DType::F32, {64, b_rows, 2, 1}, "y");
  Tensor& r = op(b, x, y);
  Graph g = b.build({&r});
  PlacedGraph p(dev, g);
  const std::vector<float> xv = values(64 * 3 * 2, 1), yv = values(static_cast<size_t>(64 * b_rows * 2), 2);
  PlacedGraph::set(x, xv);
  PlacedGraph::set(y, yv);
  run(dev, g);
  std::vector<double> want(xv.size());
  for (size_t i = 0; i < xv.size(); ++i) {
    const size_t i0 = i % 64, i1 = i / 64 % 3, i2 = i / 192;
    want[i] = ref(xv[i], yv[(i2 * static_cast<size_t>(b_rows) + i1 % static_cast<size_t>(b_rows)) * 64 + i0]);
  }
  EXPECT_EQ(mismatches(PlacedGraph::get(r), want, 1e-6), 0u) << "b rows " << b_rows;
}

// x: 128 x 5, or with `padded` a view of the first 128 elements of rows of 132 (rows
// contiguous, the tensor not: the vec4 row path rather than the flat one).
void check_unary(Device& dev, const Unary& op, const std::function<double(double)>& ref, double tolerance,
                 bool padded) {
  GraphBuilder b;
  const int64_t row = padded ? 132 : 128;
  Tensor& x = b.input(DType::F32, {row, 5, 1, 1}, "x");
  Tensor& in = padded ? ops::view(b, x, {128, 5, 1, 1}, {4, 4 * 132, 4 * 132 * 5, 4 * 132 * 5}, 0) : x;
  Tensor& r = op(b, in);
  Graph g = b.build({&r});
  PlacedGraph p(dev, g);
  std::vector<float> xv = values(static_cast<size_t>(row * 5), 3);
  for (float& v : xv) v *= 6;  // [-6, 6]: both tails of silu and gelu
  PlacedGraph::set(x, xv);
  run(dev, g);
  std::vector<double> want(128 * 5);
  for (size_t i = 0; i < want.size(); ++i) want[i] = ref(xv[i / 128 * static_cast<size_t>(row) + i % 128]);
  EXPECT_EQ(mismatches(PlacedGraph::get(r), want, tolerance), 0u) << (padded ? "padded rows" : "contiguous");
}

void check_unaries(Device& dev, bool padded) {
  check_unary(
      dev, [](GraphBuilder& b, Tensor& x) -> Tensor& { return ops::scale(b, x, -1.5f); },
      [](double x) { return -1.5 * x; }, 1e-6, padded);
  check_unary(
      dev, ops::silu, [](double x) { return x / (1 + std::exp(-x)); }, 1e-5, padded);
  check_unary(
      dev, ops::gelu,
      [](double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); },
      1e-5, padded);
}

TEST(VulkanFastPaths, ElementwiseVec4Rows) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  for (int64_t b_rows : {3, 1}) {
    check_binary(
        *dev, ops::add, [](double x, double y) { return x + y; }, b_rows);
    check_binary(
        *dev, ops::mul, [](double x, double y) { return x * y; }, b_rows);
  }
  check_unaries(*dev, true);
}

// Same-shape contiguous F32 operands take elementwise_flat.glsl: here rows of an odd length
// (the row kernels' scalar path otherwise) and 13 workgroups, the last partial.
TEST(VulkanFastPaths, ElementwiseFlat) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const int64_t n0 = 1025, n1 = 12;
  for (const bool is_add : {true, false}) {
    GraphBuilder b;
    Tensor& x = b.input(DType::F32, {n0, n1, 1, 1}, "x");
    Tensor& y = b.input(DType::F32, {n0, n1, 1, 1}, "y");
    Tensor& r = is_add ? ops::add(b, x, y) : ops::mul(b, x, y);
    Graph g = b.build({&r});
    PlacedGraph p(*dev, g);
    const std::vector<float> xv = values(n0 * n1, 6), yv = values(n0 * n1, 7);
    PlacedGraph::set(x, xv);
    PlacedGraph::set(y, yv);
    run(*dev, g);
    std::vector<double> want(xv.size());
    for (size_t i = 0; i < xv.size(); ++i) want[i] = is_add ? double{xv[i]} + yv[i] : double{xv[i]} * yv[i];
    EXPECT_EQ(mismatches(PlacedGraph::get(r), want, 1e-6), 0u) << (is_add ? "add" : "mul");
  }
  check_unaries(*dev, false);
}

// The flat kernels on operands that do not start their buffer: x and y views 4 and 8 elements
// in (one and two texels), so the texel views and storage ranges start inside the buffer.
TEST(VulkanFastPaths, ElementwiseFlatOffsetViews) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const int64_t n0 = 516, n1 = 7, n = n0 * n1;
  GraphBuilder b;
  Tensor& xs = b.input(DType::F32, {n + 4, 1, 1, 1}, "xs");
  Tensor& ys = b.input(DType::F32, {n + 8, 1, 1, 1}, "ys");
  const size_t row = 4 * n0, all = 4 * n;
  Tensor& x = ops::view(b, xs, {n0, n1, 1, 1}, {4, row, all, all}, 4 * 4);
  Tensor& y = ops::view(b, ys, {n0, n1, 1, 1}, {4, row, all, all}, 8 * 4);
  Tensor& r = ops::add(b, x, y);
  Graph g = b.build({&r});
  PlacedGraph p(*dev, g);
  const std::vector<float> xv = values(static_cast<size_t>(n + 4), 8),
                           yv = values(static_cast<size_t>(n + 8), 9);
  PlacedGraph::set(xs, xv);
  PlacedGraph::set(ys, yv);
  run(*dev, g);
  std::vector<double> want(static_cast<size_t>(n));
  for (size_t i = 0; i < want.size(); ++i) want[i] = double{xv[i + 4]} + yv[i + 8];
  EXPECT_EQ(mismatches(PlacedGraph::get(r), want, 1e-6), 0u);
}

// Rows longer than one workgroup's share (4096 items on a CPU device, 256 on a GPU), so that
// several workgroups stride over each row of the general element-wise kernel: odd rows (the
// scalar path) with b broadcast, vec4 rows with b broadcast, and the copy kernel on cont of a
// transposed tensor (every row strided).
TEST(VulkanFastPaths, ElementwiseLongRows) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  for (const int64_t n0 : {int64_t{9001}, int64_t{32772}}) {
    GraphBuilder b;
    Tensor& x = b.input(DType::F32, {n0, 2, 1, 1}, "x");
    Tensor& y = b.input(DType::F32, {n0, 1, 1, 1}, "y");
    Tensor& r = ops::add(b, x, y);
    Graph g = b.build({&r});
    PlacedGraph p(*dev, g);
    const std::vector<float> xv = values(static_cast<size_t>(n0 * 2), 10),
                             yv = values(static_cast<size_t>(n0), 11);
    PlacedGraph::set(x, xv);
    PlacedGraph::set(y, yv);
    run(*dev, g);
    std::vector<double> want(xv.size());
    for (size_t i = 0; i < want.size(); ++i) want[i] = double{xv[i]} + yv[i % static_cast<size_t>(n0)];
    EXPECT_EQ(mismatches(PlacedGraph::get(r), want, 1e-6), 0u) << "rows of " << n0;
  }
  const int64_t n = 9001;
  GraphBuilder b;
  Tensor& x = b.input(DType::F32, {3, n, 1, 1}, "x");
  Tensor& r = ops::cont(b, ops::transpose(b, x));  // r[i1][i0] = x[i0][i1]: rows of n
  Graph g = b.build({&r});
  PlacedGraph p(*dev, g);
  const std::vector<float> xv = values(static_cast<size_t>(3 * n), 12);
  PlacedGraph::set(x, xv);
  run(*dev, g);
  std::vector<double> want(xv.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = xv[i % n * 3 + i / n];
  EXPECT_EQ(mismatches(PlacedGraph::get(r), want, 0), 0u) << "cont of a transpose";
}

// d = w x for w: K x M, x: K x N, against a double reference.
void check_mul_mat(Device& dev, DType wtype, int64_t m, int64_t n, int64_t k) {
  GraphBuilder b;
  Tensor& w = b.weight(wtype, {k, m, 1, 1}, "w");
  Tensor& x = b.input(DType::F32, {k, n, 1, 1}, "x");
  Tensor& r = ops::mul_mat(b, w, x);
  Graph g = b.build({&r});
  PlacedGraph p(dev, g);
  std::vector<float> wv = values(static_cast<size_t>(k * m), 4), xv = values(static_cast<size_t>(k * n), 5);
  // Values exact in F16 and BF16 (multiples of 1/64 in [-1, 1]), so one reference serves all.
  for (float& v : wv) v = std::round(v * 64) / 64;
  std::vector<uint8_t> raw(w.nbytes());
  for (size_t i = 0; i < wv.size(); ++i) {
    if (wtype == DType::F32) {
      std::memcpy(raw.data() + 4 * i, &wv[i], 4);
    } else {
      uint32_t bits;
      std::memcpy(&bits, &wv[i], 4);
      const uint16_t h = wtype == DType::BF16 ? static_cast<uint16_t>(bits >> 16) : f32_to_f16(wv[i]);
      std::memcpy(raw.data() + 2 * i, &h, 2);
    }
  }
  w.buffer->set_tensor(w, raw.data(), 0, raw.size());
  PlacedGraph::set(x, xv);
  run(dev, g);
  std::vector<double> want(static_cast<size_t>(m * n));
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      double s = 0;
      for (int64_t kk = 0; kk < k; ++kk) s += double{wv[i * k + kk]} * xv[j * k + kk];
      want[j * m + i] = s;
    }
  }
  EXPECT_EQ(mismatches(PlacedGraph::get(r), want, 1e-4), 0u)
      << dtype_name(wtype) << " M=" << m << " N=" << n << " K=" << k;
}

TEST(VulkanFastPaths, LaneMulMatBlocks) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  for (DType w : {DType::F32, DType::F16, DType::BF16}) {
    for (int64_t n : {1, 9, 16, 17}) {      // 17: a last single column after 8- and 16-column blocks
      check_mul_mat(*dev, w, 300, n, 64);   // vec4 K loop; two row groups, the second partial
      check_mul_mat(*dev, w, 300, n, 100);  // 25 vec4s: 3 shuffled blocks of 8 and a tail of 1
      check_mul_mat(*dev, w, 300, n, 33);   // scalar K loop
    }
  }
}

// maxStorageBufferRange in bytes, or 0 when a tensor above it is too big to check here.
uint64_t small_storage_range(const Device& dev) {
  const nlohmann::json d = device_details(dev);
  const auto range = d.at("limits").at("max_storage_buffer_range").get<uint64_t>();
  return range > (uint64_t{512} << 20) ? 0 : range;
}

// A weight larger than one storage binding (maxStorageBufferRange: 128 MiB on lavapipe) is
// multiplied in blocks of its rows; 300 rows past the limit leave a partial last block.
TEST(VulkanFastPaths, MulMatWeightLargerThanOneBinding) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const uint64_t range = small_storage_range(*dev);
  if (range == 0) GTEST_SKIP() << "maxStorageBufferRange is too large to exceed here";
  const int64_t k = 1024;
  check_mul_mat(*dev, DType::F32, static_cast<int64_t>(range / (k * sizeof(float))) + 300, 3, k);
}

// The same for get_rows' table: rows from both blocks, either side of the boundary, the last.
TEST(VulkanFastPaths, GetRowsFromATableLargerThanOneBinding) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const uint64_t range = small_storage_range(*dev);
  if (range == 0) GTEST_SKIP() << "maxStorageBufferRange is too large to exceed here";
  const int64_t width = 1024, rows = static_cast<int64_t>(range / (width * sizeof(float))) + 300;
  const std::vector<int32_t> picks = {0,
                                      7,
                                      static_cast<int32_t>(rows / 2),
                                      static_cast<int32_t>(rows - 301),
                                      static_cast<int32_t>(rows - 300),
                                      static_cast<int32_t>(rows - 1),
                                      3};
  GraphBuilder b;
  Tensor& table = b.weight(DType::F32, {width, rows, 1, 1}, "table");
  Tensor& idx = b.input(DType::I32, {static_cast<int64_t>(picks.size()), 1, 1, 1}, "idx");
  Tensor& r = ops::get_rows(b, table, idx);
  Graph g = b.build({&r});
  PlacedGraph p(*dev, g);
  const std::vector<float> tv = values(static_cast<size_t>(width * rows), 13);
  PlacedGraph::set(table, tv);
  idx.buffer->set_tensor(idx, picks.data(), 0, picks.size() * sizeof(int32_t));
  run(*dev, g);
  std::vector<double> want;
  for (const int32_t row : picks) {
    const auto first = tv.begin() + static_cast<int64_t>(row) * width;
    want.insert(want.end(), first, first + width);
  }
  EXPECT_EQ(mismatches(PlacedGraph::get(r), want, 0), 0u);
}

}  // namespace
}  // namespace bk::test
