// SPDX-License-Identifier: MIT
// What only the CPU's buffers do (their type, their messages) and MultiBuffer. What every
// device's buffers do (allocation, bounds, round trips, copies, wrapping host memory) is checked
// on the CPU by the device contracts (tests/devices, Contract/CPU/CPU.*).
#include "devices/cpu/cpu_buffer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "bk/cpu.h"
#include "bk/device.h"
#include "bk/error.h"
#include "core/multi_buffer.h"
#include "cpu_graph_util.h"

namespace bk {
namespace {

template <typename Fn>
Error expect_error(Fn&& fn, ErrorCode code) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e;
  }
  ADD_FAILURE() << "expected bk::Error " << error_code_name(code);
  return Error(code, "");
}

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

class CpuBufferTest : public ::testing::Test {
 protected:
  BufferType& type = test::cpu_device().buffer_type();
};

TEST_F(CpuBufferTest, TypeProperties) {
  EXPECT_EQ(type.name(), "CPU");
  EXPECT_EQ(&type.device(), &test::cpu_device());
  EXPECT_EQ(type.alignment(), 64u);
  EXPECT_TRUE(type.is_host());
  EXPECT_GT(type.max_size(), test::cpu_device().memory().total);
  EXPECT_EQ(type.max_size() % 64, 0u);
}

// The refusal itself is a device contract (tests/devices); what the CPU's message says is not.
TEST_F(CpuBufferTest, MisalignedHostPointerMessageSaysByHowMuchAndWhatToDo) {
  std::unique_ptr<void, FreeDeleter> mem(std::aligned_alloc(64, 256));
  ASSERT_NE(mem.get(), nullptr);
  void* off = static_cast<char*>(mem.get()) + 8;
  const Error e =
      expect_error([&] { test::cpu_device().buffer_from_host_ptr(off, 128); }, ErrorCode::invalid_argument);
  const std::string msg = e.what();
  EXPECT_NE(msg.find("64 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("8 bytes past"), std::string::npos) << msg;
  EXPECT_NE(msg.find("aligned_alloc"), std::string::npos) << msg;
}

TEST_F(CpuBufferTest, MultiBufferClearSetsEveryPart) {
  std::vector<std::unique_ptr<Buffer>> parts;
  for (size_t size : {size_t{100}, size_t{64}, size_t{1000}}) parts.push_back(type.alloc(size));
  MultiBuffer multi(std::move(parts));
  EXPECT_EQ(multi.size(), 1164u);
  multi.clear(0x5a);
  for (const auto& part : multi.parts()) {
    std::vector<uint8_t> back(part->size());
    part->read(0, back.data(), back.size());
    EXPECT_EQ(back, std::vector<uint8_t>(part->size(), 0x5a));
  }
  multi.set_usage(BufferUsage::weights);
  EXPECT_EQ(multi.usage(), BufferUsage::weights);
  for (const auto& part : multi.parts()) EXPECT_EQ(part->usage(), BufferUsage::weights);
}

// A large buffer starts a 2 MiB page (so that the kernel can back it with huge pages) and is
// used to its last byte like any other; a small one is only line-aligned.
TEST_F(CpuBufferTest, LargeBuffersStartAHugePage) {
  const size_t size = kHugePageMinBuffer + 4097;
  const auto large = type.alloc(size);
  const auto base = reinterpret_cast<uintptr_t>(large->base());
  EXPECT_EQ(base % (size_t{2} << 20), 0u);
  const std::vector<uint8_t> tail(4097, 0xa5);
  large->write(size - tail.size(), tail.data(), tail.size());
  std::vector<uint8_t> back(tail.size());
  large->read(size - tail.size(), back.data(), back.size());
  EXPECT_EQ(back, tail);
  const auto small = type.alloc(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small->base()) % kCpuAlignment, 0u);
}

TEST_F(CpuBufferTest, AbsurdSizeIsOutOfMemoryNamingSizeAndDevice) {
  const size_t absurd = size_t{1} << 60;
  const Error e = expect_error([&] { type.alloc(absurd); }, ErrorCode::out_of_memory);
  const std::string msg = e.what();
  EXPECT_NE(msg.find(std::to_string(absurd)), std::string::npos) << msg;
  EXPECT_NE(msg.find("CPU"), std::string::npos) << msg;
  EXPECT_NE(msg.find("available"), std::string::npos) << msg;
}

}  // namespace
}  // namespace bk
