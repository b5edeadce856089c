// SPDX-License-Identifier: MIT
// What is specific to simulated devices: their configuration (memory, ops, types, reads, offload,
// async streams across devices) and labels. Buffers, streams and events as every device has them
// are checked by the device contracts (tests/devices, sim_async.* and sim_sync.*).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <utility>
#include <vector>

#include "bk/error.h"
#include "bk/ops.h"
#include "probe/device_details.h"
#include "sim_fixture.h"
#include "thrown.h"

namespace bk {
namespace {

TEST(SimDevice, IsLabelledSimulated) {
  test::SimDevices sims("gpu0:ops=mul_mat+add,mem=1GiB");
  Device& d = sims.device("gpu0");
  EXPECT_TRUE(d.is_simulated());
  EXPECT_NE(d.description().find("simulated"), std::string::npos);
  EXPECT_EQ(d.type(), DeviceType::gpu);
  const nlohmann::json details = device_details(d);
  EXPECT_EQ(details["simulated"], true);
  EXPECT_EQ(details["ops"], (nlohmann::json{"add", "mul_mat"}));
  EXPECT_EQ(d.reg().name(), "Sim");
}

TEST(SimDevice, RegWithoutDevicesSaysWhy) {
  auto reg = make_sim_reg("", "BK_SIM_DEVICES is not set");
  EXPECT_TRUE(reg->devices().empty());
  EXPECT_EQ(reg->status(), "BK_SIM_DEVICES is not set");
}

TEST(SimDevice, AllocationsHonourTheDeclaredMemory) {
  test::SimDevices sims("gpu0:mem=1MiB,max_buffer=768KiB");
  Device& d = sims.device("gpu0");
  BufferType& type = d.buffer_type();
  EXPECT_FALSE(type.is_host());
  EXPECT_EQ(type.max_size(), size_t{768} << 10);
  auto a = type.alloc(size_t{512} << 10);
  EXPECT_EQ(d.memory().free, size_t{512} << 10);
  const Error e = test::thrown_by([&] { type.alloc(size_t{600} << 10); },
                                  "allocation beyond the declared memory succeeded");
  EXPECT_EQ(e.code(), ErrorCode::out_of_memory);
  EXPECT_NE(std::string(e.what()).find("gpu0 (simulated)"), std::string::npos);
  a.reset();
  EXPECT_EQ(d.memory().free, d.memory().total);
  EXPECT_NO_THROW(type.alloc(size_t{700} << 10));
}

TEST(SimDevice, DeclaresOpsAndTypes) {
  test::SimDevices sims("gpu0:ops=mul_mat+add,types=f32");
  Device& d = sims.device("gpu0");
  GraphBuilder g;
  Tensor& w16 = g.weight(DType::F16, {8, 4, 1, 1}, "w16");
  Tensor& w32 = g.weight(DType::F32, {8, 4, 1, 1}, "w32");
  Tensor& x = g.input(DType::F32, {8, 2, 1, 1}, "x");
  Tensor& mm16 = ops::mul_mat(g, w16, x);
  Tensor& mm32 = ops::mul_mat(g, w32, x);
  Tensor& norm = ops::rms_norm(g, x, 1e-5f);
  Tensor& view = ops::reshape(g, x, {16, 1, 1, 1});
  EXPECT_TRUE(d.supports_op(mm32));
  EXPECT_FALSE(d.supports_op(mm16));
  EXPECT_FALSE(d.supports_op(norm));
  EXPECT_TRUE(d.supports_op(view));
  EXPECT_NE(d.unsupported_reason(norm).find("does not run op rms_norm"), std::string::npos);
  EXPECT_NE(d.unsupported_reason(mm16).find("types=f32"), std::string::npos);
  EXPECT_TRUE(d.unsupported_reason(mm32).empty());
}

TEST(SimDevice, ReadsOnlyItsOwnMemoryUnlessConfigured) {
  test::SimDevices sims("gpu0;gpu1:reads=CPU+gpu0");
  BufferType& cpu = sims.device("CPU").buffer_type();
  EXPECT_FALSE(sims.device("gpu0").supports_buffer_type(cpu));
  EXPECT_TRUE(sims.device("gpu0").supports_buffer_type(sims.device("gpu0").buffer_type()));
  EXPECT_FALSE(sims.device("gpu0").supports_buffer_type(sims.device("gpu1").buffer_type()));
  EXPECT_TRUE(sims.device("gpu1").supports_buffer_type(cpu));
  EXPECT_TRUE(sims.device("gpu1").supports_buffer_type(sims.device("gpu0").buffer_type()));
  EXPECT_FALSE(sims.device("CPU").supports_buffer_type(sims.device("gpu0").buffer_type()));
}

TEST(SimDevice, OffloadsDeclaredOpsFromTheMinimumBatch) {
  test::SimDevices sims("gpu0:offload=mul_mat,offload_min_batch=4");
  GraphBuilder g;
  Tensor& w = g.weight(DType::F32, {8, 4, 1, 1}, "w");
  Tensor& small = ops::mul_mat(g, w, g.input(DType::F32, {8, 3, 1, 1}, "x3"));
  Tensor& big = ops::mul_mat(g, w, g.input(DType::F32, {8, 4, 1, 1}, "x4"));
  EXPECT_FALSE(sims.device("gpu0").offload_op(small));
  EXPECT_TRUE(sims.device("gpu0").offload_op(big));
}

// A simulated device reads host memory in place (the device contracts accept a refusal there).
TEST(SimDevice, CopiesFromHostMemory) {
  test::SimDevices sims("gpu0");
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {4, 1, 1, 1}, "a");
  Tensor& b = g.input(DType::F32, {4, 1, 1, 1}, "b");
  auto host = sims.device("CPU").buffer_type().alloc(64);
  auto sim = sims.device("gpu0").buffer_type().alloc(64);
  host->place_tensor(a, 0);
  sim->place_tensor(b, 0);
  const float values[4] = {1, 2, 3, 4};
  host->set_tensor(a, values, 0, sizeof values);
  EXPECT_TRUE(sim->copy_tensor(a, b));
  float back[4] = {};
  sim->get_tensor(b, back, 0, sizeof back);
  EXPECT_EQ(back[3], 4.0f);
}

// An asynchronous stream: compute and a copy into another stream are queued in order, and the
// event and synchronize() are what make their results visible.
TEST(SimDevice, AsyncStreamsOrderComputeCopiesAndEvents) {
  test::SimDevices sims("gpu0:async=yes;gpu1:async=yes");
  EXPECT_TRUE(sims.device("gpu0").caps().async);
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {1024, 1, 1, 1}, "x");
  Tensor* y = &x;
  for (int i = 0; i < 20; ++i) y = &ops::add(g, *y, x);
  Graph graph = g.build({y});
  auto mem0 = sims.device("gpu0").buffer_type().alloc(size_t{1} << 20);
  auto mem1 = sims.device("gpu1").buffer_type().alloc(4096);
  size_t offset = 0;
  for (Tensor* t : graph.leafs()) mem0->place_tensor(*t, std::exchange(offset, offset + 4096));
  for (Tensor* t : graph.nodes()) mem0->place_tensor(*t, std::exchange(offset, offset + 4096));
  Tensor copy = *y;
  mem1->place_tensor(copy, 0);
  const std::vector<float> ones(1024, 1.0f);
  mem0->set_tensor(x, ones.data(), 0, 4096);
  Backend& b0 = sims.backend("gpu0");
  Backend& b1 = sims.backend("gpu1");
  b0.compute(graph);
  ASSERT_TRUE(b1.copy_tensor_async(b0, *y, copy));  // queued behind gpu0's compute
  auto event = sims.device("gpu1").create_event();
  event->record(b1);
  event->synchronize();
  std::vector<float> back(1024);
  mem1->get_tensor(copy, back.data(), 0, 4096);
  EXPECT_EQ(back.front(), 21.0f);
  EXPECT_EQ(back.back(), 21.0f);
  b0.synchronize();
  b1.synchronize();
}

TEST(SimDevice, ComputeRefusesUndeclaredOps) {
  test::SimDevices sims("gpu0:ops=add");
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {4, 1, 1, 1}, "x");
  Graph graph = g.build({&ops::silu(g, x)});
  const Error e =
      test::thrown_by([&] { sims.backend("gpu0").compute(graph); }, "an undeclared op was computed");
  EXPECT_EQ(e.code(), ErrorCode::unsupported);
  EXPECT_NE(std::string(e.what()).find("does not run op silu"), std::string::npos);
}

}  // namespace
}  // namespace bk
