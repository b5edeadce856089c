// A CUDA device's properties, memory, transfers and events. These need a GPU; elsewhere they
// are skipped with the reg's reason.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstring>
#include <numeric>
#include <vector>

#include "bk/error.h"
#include "bk/ops.h"
#include "cuda_test_util.h"
#include "probe/device_details.h"

namespace bk {
namespace {

using cuda_test::CudaDeviceTest;

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 31 + seed);
  return v;
}

TEST_F(CudaDeviceTest, ReportsItsProperties) {
  const MemoryInfo m = device().memory();
  EXPECT_GT(m.total, size_t{0});
  EXPECT_LE(m.free, m.total);
  const DeviceCaps caps = device().caps();
  EXPECT_TRUE(caps.async && caps.events && caps.host_buffer);
  const nlohmann::json d = device_details(device());
  EXPECT_EQ(d["uuid"].get<std::string>().rfind("GPU-", 0), 0u) << d.dump();
  EXPECT_EQ(d["pci_bus_id"], device().stable_id());
  EXPECT_GT(d["sm_count"].get<int>(), 0);
  EXPECT_FALSE(d["compute_capability"].get<std::string>().empty());
  EXPECT_NE(d["runtime_version"], "none");
  ASSERT_TRUE(d["telemetry"].is_object());
  if (!d["telemetry"]["available"].get<bool>()) {
    EXPECT_FALSE(d["telemetry"]["reason"].get<std::string>().empty());
  }
  EXPECT_TRUE(d["cublas"]["loaded"].get<bool>()) << d["cublas"].dump();
}

TEST_F(CudaDeviceTest, DeviceMemoryRoundTrips) {
  BufferType& type = device().buffer_type();
  EXPECT_FALSE(type.is_host());
  EXPECT_EQ(type.alignment(), 256u);
  auto a = type.alloc(1 << 20);
  auto b = type.alloc(1 << 20);
  const auto data = pattern(1 << 20, 7);
  a->write(0, data.data(), data.size());
  std::vector<uint8_t> back(data.size());
  a->read(0, back.data(), back.size());
  EXPECT_EQ(back, data);
  a->fill(100, 0xAB, 50);
  a->read(0, back.data(), back.size());
  EXPECT_EQ(back[99], data[99]);
  EXPECT_EQ(back[100], 0xAB);
  EXPECT_EQ(back[149], 0xAB);
  EXPECT_EQ(back[150], data[150]);
  EXPECT_TRUE(device().supports_buffer_type(type));
  auto empty = type.alloc(0);
  EXPECT_NE(empty->base(), nullptr);
}

TEST_F(CudaDeviceTest, OversizedAllocationsFailWithTheNumbers) {
  BufferType& type = device().buffer_type();
  EXPECT_THROW(type.alloc(type.max_size() + 1), Error);
  try {
    type.alloc(type.max_size());  // the context itself holds some memory: never all of it
    FAIL() << "allocating all device memory succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::out_of_memory);
    const std::string m = e.what();
    EXPECT_NE(m.find(device().name()), std::string::npos) << m;
    EXPECT_NE(m.find("cudaErrorMemoryAllocation"), std::string::npos) << m;
    EXPECT_NE(m.find("free"), std::string::npos) << m;
  }
  auto again = type.alloc(1 << 20);  // the failure left nothing sticky behind
  EXPECT_NE(again, nullptr);
}

TEST_F(CudaDeviceTest, PinnedHostBuffersAreHostMemory) {
  BufferType* host = device().host_buffer_type();
  ASSERT_NE(host, nullptr);
  EXPECT_TRUE(host->is_host());
  EXPECT_EQ(host->name(), device().name() + "_Host");
  auto buffer = host->alloc(4096);
  std::memset(buffer->base(), 0x5A, 4096);  // a real host pointer
  EXPECT_FALSE(device().supports_buffer_type(*host));
}

TEST_F(CudaDeviceTest, AsyncTransfersAndCopiesOnTheStream) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {1000, 3, 1, 1}, "a");
  Tensor& b = g.input(DType::F32, {1000, 3, 1, 1}, "b");
  Graph graph = g.build({&ops::add(g, a, b)});
  auto buffer = cuda_test::place_graph(device().buffer_type(), graph);
  auto pinned_graph_buffer = device().host_buffer_type()->alloc(a.nbytes());
  Tensor staged = a;
  pinned_graph_buffer->place_tensor(staged, 0);

  std::vector<float> values(3000);
  std::iota(values.begin(), values.end(), 1.0f);
  std::memcpy(staged.data, values.data(), a.nbytes());
  auto backend = device().init_backend();
  ASSERT_TRUE(backend->copy_tensor_async(*backend, staged, a));  // pinned host -> device
  ASSERT_TRUE(backend->copy_tensor_async(*backend, a, b));       // device -> device
  auto event = device().create_event();
  event->record(*backend);
  auto second = device().init_backend();
  second->wait(*event);
  std::vector<float> back(3000, -1.0f);
  second->get_tensor_async(b, back.data(), 0, b.nbytes());
  second->synchronize();
  EXPECT_EQ(back, values);

  backend->set_tensor_async(a, values.data() + 1000, 0, 1000 * sizeof(float));
  backend->synchronize();
  a.buffer->get_tensor(a, back.data(), 0, 1000 * sizeof(float));
  EXPECT_EQ(back[0], 1001.0f);
  EXPECT_THROW(backend->set_tensor_async(a, values.data(), a.nbytes(), 4), Error);
}

TEST_F(CudaDeviceTest, EventsBelongToTheirDevice) {
  auto event = device().create_event();
  EXPECT_EQ(&event->device(), &device());
  event->synchronize();  // never recorded: already complete
  auto cpu = cuda_test::registry().device("CPU").init_backend();
  EXPECT_THROW(event->record(*cpu), Error);
}

TEST_F(CudaDeviceTest, TimingEventsMeasureTheWorkBetweenThem) {
  ASSERT_TRUE(device().caps().event_timing);
  auto backend = device().init_backend();
  auto start = device().create_timing_event();
  auto stop = device().create_timing_event();
  EXPECT_THROW(stop->seconds_since(*start), Error);  // never recorded
  start->record(*backend);
  const double flops = backend->run_peak_kernel(DType::F32, 1e10);
  stop->record(*backend);
  stop->synchronize();
  const double seconds = stop->seconds_since(*start);
  EXPECT_GT(flops, 0.0);
  EXPECT_GT(seconds, 0.0);
  EXPECT_LT(seconds, 10.0);
  auto plain = device().create_event();
  plain->record(*backend);
  plain->synchronize();
  EXPECT_THROW(plain->seconds_since(*start), Error);  // made without timing
}

TEST_F(CudaDeviceTest, PeakKernelRunsEveryFloatType) {
  auto backend = device().init_backend();
  for (const DType type : {DType::F32, DType::F16, DType::BF16}) {
    const double performed = backend->run_peak_kernel(type, 1e9);
    EXPECT_GE(performed, 1e9) << dtype_name(type);
  }
  EXPECT_THROW(backend->run_peak_kernel(DType::I32, 1e9), Error);
  EXPECT_THROW(backend->run_peak_kernel(DType::F32, -1), Error);
}

TEST_F(CudaDeviceTest, PeerCopiesBetweenGpus) {
  const auto devices = cuda_test::cuda_devices();
  if (devices.size() < 2) GTEST_SKIP() << "needs two CUDA devices, found " << devices.size();
  auto a = devices[0]->buffer_type().alloc(1 << 16);
  auto b = devices[1]->buffer_type().alloc(1 << 16);
  const auto data = pattern(1 << 16, 3);
  a->write(0, data.data(), data.size());
  Tensor ta;
  ta.type = DType::I32;
  ta.ne = {1 << 14, 1, 1, 1};
  ta.nb = packed_strides(ta.type, ta.ne);
  Tensor tb = ta;
  a->place_tensor(ta, 0);
  b->place_tensor(tb, 0);
  auto src_backend = devices[0]->init_backend();
  auto dst_backend = devices[1]->init_backend();
  ASSERT_TRUE(dst_backend->copy_tensor_async(*src_backend, ta, tb));
  dst_backend->synchronize();
  std::vector<uint8_t> back(data.size());
  b->read(0, back.data(), back.size());
  EXPECT_EQ(back, data);
}

}  // namespace
}  // namespace bk
