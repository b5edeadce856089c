// SPDX-License-Identifier: MIT
// The kernels beyond what the conformance suite checks: grids above maxComputeWorkGroupCount,
// binding offsets that are not multiples of minStorageBufferOffsetAlignment, tensors in a later
// memory chunk and across a chunk boundary, and tensors above maxStorageBufferRange. The
// numerical checks per op are the conformance suite's (Conformance/Vulkan0.*).

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "bk/ops.h"
#include "probe/device_details.h"
#include "vulkan_graph_util.h"
#include "vulkan_test_util.h"

namespace bk::test {
namespace {

uint32_t device_limit(Device& dev, const char* key, size_t index = 0) {
  nlohmann::json j = device_details(dev);
  const nlohmann::json& v = j["limits"][key];
  return v.is_array() ? v[index].get<uint32_t>() : v.get<uint32_t>();
}

size_t chunk_size(Device& dev) {
  nlohmann::json j = device_details(dev);
  return j["buffer_chunk_size"].get<size_t>();
}

void run(Device& dev, Graph& g) {
  auto backend = dev.init_backend();
  backend->compute(g);
  backend->synchronize();
}

TEST(VulkanKernels, RowKernelOverMoreRowsThanOneGridDimension) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  // 16 x (limit + 7): above the limit in workgroups too where 16 rows share one (CPU devices).
  const int64_t rows = 16 * (int64_t{device_limit(*dev, "max_compute_work_group_count")} + 7);
  GraphBuilder b;
  Tensor& a = b.input(DType::F32, {1, rows, 1, 1}, "a");
  Tensor& r = ops::rms_norm(b, a, 1e-12f);  // one element per row: x / |x| = sign(x)
  Graph g = b.build({&r});
  PlacedGraph p(*dev, g);
  std::vector<float> in(static_cast<size_t>(rows));
  for (size_t i = 0; i < in.size(); ++i) in[i] = (i % 3 == 0 ? -0.5f : 2.0f) + static_cast<float>(i % 5);
  PlacedGraph::set(a, in);
  run(*dev, g);
  const std::vector<float> out = PlacedGraph::get(r);
  size_t wrong = 0;
  for (size_t i = 0; i < in.size(); ++i)
    wrong += std::abs(out[i] - std::copysign(1.0f, in[i])) > 1e-6f ? 1 : 0;
  EXPECT_EQ(wrong, 0u) << "of " << rows << " rows";
}

TEST(VulkanKernels, ElementwiseOverMoreRowsThanOneGridDimension) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const int64_t rows = int64_t{device_limit(*dev, "max_compute_work_group_count", 1)} + 5;
  GraphBuilder b;
  Tensor& a = b.input(DType::F32, {2, rows, 1, 1}, "a");
  Tensor& r = ops::add(b, a, b.input(DType::F32, {2, 1, 1, 1}, "bias"));
  Graph g = b.build({&r});
  PlacedGraph p(*dev, g);
  std::vector<float> in(static_cast<size_t>(2 * rows));
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 1000);
  PlacedGraph::set(a, in);
  PlacedGraph::set(*r.src[1], {0.5f, 0.25f});
  run(*dev, g);
  const std::vector<float> out = PlacedGraph::get(r);
  size_t wrong = 0;
  for (size_t i = 0; i < in.size(); ++i) wrong += out[i] != in[i] + (i % 2 == 0 ? 0.5f : 0.25f) ? 1 : 0;
  EXPECT_EQ(wrong, 0u) << "of " << rows << " rows";
}

TEST(VulkanKernels, MulMatOverMoreBatchesThanOneDispatch) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const int64_t batches = int64_t{device_limit(*dev, "max_compute_work_group_count", 2)} + 3;
  GraphBuilder b;
  Tensor& w = b.weight(DType::F32, {2, 1, batches, 1}, "w");
  Tensor& x = b.input(DType::F32, {2, 1, batches, 1}, "x");
  Tensor& r = ops::mul_mat(b, w, x);
  Graph g = b.build({&r});
  PlacedGraph p(*dev, g);
  std::vector<float> wv(static_cast<size_t>(2 * batches)), xv(wv.size());
  for (size_t i = 0; i < wv.size(); ++i) {
    wv[i] = static_cast<float>(i / 2 % 97);
    xv[i] = i % 2 == 0 ? 1.0f : 0.5f;
  }
  PlacedGraph::set(w, wv);
  PlacedGraph::set(x, xv);
  run(*dev, g);
  const std::vector<float> out = PlacedGraph::get(r);
  size_t wrong = 0;
  for (size_t i = 0; i < out.size(); ++i) wrong += out[i] != 1.5f * static_cast<float>(i % 97) ? 1 : 0;
  EXPECT_EQ(wrong, 0u) << "of " << batches << " batches";
}

TEST(VulkanKernels, ViewsAtOddElementOffsetsBindAlignedRanges) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  GraphBuilder b;
  Tensor& a = b.input(DType::F32, {37, 1, 1, 1}, "a");
  Tensor& h = b.input(DType::F16, {37, 1, 1, 1}, "h");
  // One element in: 4 and 2 bytes past an aligned address.
  Tensor& va = ops::view(b, a, {35, 1, 1, 1}, a.nb, sizeof(float));
  Tensor& vh = ops::view(b, h, {35, 1, 1, 1}, h.nb, 2);
  Tensor& r = ops::add(b, ops::scale(b, va, 2.0f), ops::cast(b, vh, DType::F32));
  Graph g = b.build({&r});
  PlacedGraph p(*dev, g);
  std::vector<float> av(37);
  std::vector<uint16_t> hv(37);
  for (size_t i = 0; i < av.size(); ++i) {
    av[i] = static_cast<float>(i);
    hv[i] = f32_to_f16(static_cast<float>(100 * i));  // even and below 4096: exact in f16
  }
  PlacedGraph::set(a, av);
  h.buffer->set_tensor(h, hv.data(), 0, hv.size() * 2);
  run(*dev, g);
  const std::vector<float> out = PlacedGraph::get(r);
  for (size_t i = 0; i < out.size(); ++i) {
    const auto next = static_cast<float>(i + 1);
    EXPECT_EQ(out[i], 2.0f * next + 100.0f * next) << i;
  }
}

// With BK_VULKAN_MAX_CHUNK (the staging test variant) buffers have several chunks: a tensor in
// chunk 1 binds that chunk; one across the boundary is refused with the reason.
TEST(VulkanKernels, TensorsInALaterChunkAndAcrossABoundary) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const size_t chunk = chunk_size(*dev);
  if (chunk > (size_t{64} << 20)) GTEST_SKIP() << "chunks of " << chunk << " bytes: too large to test here";
  {
    GraphBuilder b;
    Tensor& a = b.input(DType::F32, {1000, 1, 1, 1}, "a");
    Tensor& r = ops::scale(b, a, -1.0f);
    Graph g = b.build({&r});
    PlacedGraph p(*dev, g, chunk + 4096);
    PlacedGraph::set(a, std::vector<float>(1000, 3.0f));
    run(*dev, g);
    EXPECT_EQ(PlacedGraph::get(r), std::vector<float>(1000, -3.0f));
  }
  GraphBuilder b;
  Tensor& a = b.input(DType::F32, {1024, 1, 1, 1}, "a");
  Tensor& r = ops::scale(b, a, -1.0f);
  Graph g = b.build({&r});
  PlacedGraph p(*dev, g, chunk - 2048, 2 * chunk);  // a: 2 KiB on each side of the boundary
  std::string message;
  EXPECT_EQ(error_code_of([&] { run(*dev, g); }, &message), ErrorCode::unsupported);
  EXPECT_NE(message.find("crosses a " + std::to_string(chunk) + "-byte memory chunk boundary"),
            std::string::npos)
      << message;
}

TEST(VulkanKernels, TensorsAboveTheStorageBufferRangeAreUnsupportedWithReason) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const uint64_t range = device_limit(*dev, "max_storage_buffer_range");
  if (range >= (uint64_t{1} << 31))
    GTEST_SKIP() << "maxStorageBufferRange " << range << " is too large to exceed cheaply";
  GraphBuilder b;
  const int64_t n = static_cast<int64_t>(range / sizeof(float)) + 1;
  Tensor& a = b.input(DType::F32, {n, 1, 1, 1}, "big");
  Tensor& r = ops::silu(b, a);
  Tensor& small = ops::silu(b, b.input(DType::F32, {4, 1, 1, 1}, "small"));
  EXPECT_FALSE(dev->supports_op(r));
  EXPECT_NE(dev->unsupported_reason(r).find("maxStorageBufferRange of " + std::to_string(range)),
            std::string::npos)
      << dev->unsupported_reason(r);
  EXPECT_TRUE(dev->supports_op(small));

  // mul_mat takes a weight matrix above the range in blocks of rows, and get_rows a table
  // (VulkanFastPaths checks the results), but not a batch of them.
  const int64_t k = 1024, rows = static_cast<int64_t>(range / (k * sizeof(float))) + 1;
  Tensor& matrix =
      ops::mul_mat(b, b.weight(DType::F32, {k, rows, 1, 1}, "w"), b.input(DType::F32, {k, 3, 1, 1}, "x"));
  EXPECT_TRUE(dev->supports_op(matrix)) << dev->unsupported_reason(matrix);
  Tensor& gathered = ops::get_rows(b, *matrix.src[0], b.input(DType::I32, {3, 1, 1, 1}, "idx"));
  EXPECT_TRUE(dev->supports_op(gathered)) << dev->unsupported_reason(gathered);
  Tensor& batch = ops::mul_mat(b, b.weight(DType::F32, {k, rows / 2 + 1, 2, 1}, "wb"),
                               b.input(DType::F32, {k, 3, 2, 1}, "xb"));
  EXPECT_FALSE(dev->supports_op(batch));
  EXPECT_NE(dev->unsupported_reason(batch).find("tensor 'wb'"), std::string::npos)
      << dev->unsupported_reason(batch);
}

}  // namespace
}  // namespace bk::test
