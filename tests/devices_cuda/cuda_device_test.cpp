// SPDX-License-Identifier: MIT
// What is specific to a CUDA device: its properties, buffer types, allocation failures, peak
// kernel and peer copies (memory, transfers and events as every device has them are checked by
// the device contracts, tests/devices, Contract/CUDA/CUDA0.*). These need a GPU; elsewhere they
// are skipped with the reg's reason.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <vector>

#include "bk/error.h"
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
  const DeviceCaps caps = device().caps();
  EXPECT_TRUE(caps.async && caps.events && caps.host_buffer && caps.event_timing);
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

// Round trips, fills and empty buffers are device contracts (tests/devices); this is CUDA's
// buffer type.
TEST_F(CudaDeviceTest, DeviceBufferTypeIsDeviceMemory) {
  BufferType& type = device().buffer_type();
  EXPECT_FALSE(type.is_host());
  EXPECT_EQ(type.alignment(), 256u);
}

// Past max_size() and absurd sizes are device contracts; all of the memory fails in the driver,
// and the message says so.
TEST_F(CudaDeviceTest, AllOfTheMemoryFailsWithTheNumbers) {
  BufferType& type = device().buffer_type();
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
}

// That they are host memory is a device contract; this is their name, and kernels do not read them.
TEST_F(CudaDeviceTest, PinnedHostBuffersAreNamedAndNotComputedOn) {
  BufferType* host = device().host_buffer_type();
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->name(), device().name() + "_Host");
  EXPECT_FALSE(device().supports_buffer_type(*host));
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
