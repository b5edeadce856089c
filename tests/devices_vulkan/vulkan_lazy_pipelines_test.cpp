// SPDX-License-Identifier: MIT
// Listing is cheap: enumerating and describing devices, allocating and transferring create no
// kernel pipeline; the first dispatch of a kernel creates its pipeline once, later dispatches
// reuse it. Its own executable, so that nothing earlier in the process has computed.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bk/ops.h"
#include "probe/device_details.h"
#include "vulkan_graph_util.h"
#include "vulkan_test_util.h"

namespace bk::test {
namespace {

size_t pipelines(Device& dev) {
  nlohmann::json j = device_details(dev);
  return j["pipelines_created"].get<size_t>();
}

void add_once(Device& dev, Backend& backend, DType wtype) {
  GraphBuilder b;
  Tensor& x = b.input(DType::F32, {4, 2, 1, 1}, "x");
  Tensor& y = ops::add(b, x, x);
  Tensor& r = ops::mul_mat(b, b.weight(wtype, {4, 3, 1, 1}, "w"), y);
  Graph g = b.build({&r});
  PlacedGraph p(dev, g);
  p.buffer().clear(0);
  backend.compute(g);
  backend.synchronize();
}

TEST(VulkanLazyPipelines, ListingAndTransfersCreateNoneAndDispatchesCreateEachOnce) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  for (Device* d : vulkan_registry().find_reg("Vulkan")->devices()) EXPECT_EQ(pipelines(*d), 0u) << d->name();
  auto backend = dev->init_backend();  // creates the context
  auto buffer = dev->buffer_type().alloc(4096);
  buffer->clear(1);
  EXPECT_EQ(pipelines(*dev), 0u);

  add_once(*dev, *backend, DType::F32);
  EXPECT_EQ(pipelines(*dev), 2u);  // add, mul_mat_f32
  add_once(*dev, *backend, DType::F32);
  EXPECT_EQ(pipelines(*dev), 2u);  // cached
  add_once(*dev, *backend, DType::F16);
  EXPECT_EQ(pipelines(*dev), 3u);  // + mul_mat_f16
}

}  // namespace
}  // namespace bk::test
