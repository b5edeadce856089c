#include "devices/cpu/cpu_buffer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#include "bk/cpu.h"
#include "bk/device.h"
#include "bk/error.h"
#include "bk/graph.h"
#include "bk/tensor.h"
#include "core/multi_buffer.h"

namespace bk {
namespace {

Device& cpu() { return *cpu_reg().devices().at(0); }

bool aligned(const void* p, size_t align) { return reinterpret_cast<uintptr_t>(p) % align == 0; }

size_t align_up(size_t n) { return (n + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment; }

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
  return v;
}

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
  BufferType& type = cpu().buffer_type();
  GraphBuilder builder;
};

TEST_F(CpuBufferTest, TypeProperties) {
  EXPECT_EQ(type.name(), "CPU");
  EXPECT_EQ(&type.device(), &cpu());
  EXPECT_EQ(type.alignment(), 64u);
  EXPECT_TRUE(type.is_host());
  EXPECT_GT(type.max_size(), cpu().memory().total);
  EXPECT_EQ(type.max_size() % 64, 0u);
}

TEST_F(CpuBufferTest, AllocationsAreAlignedAndSizedAsAsked) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{4099}}) {
    auto buf = type.alloc(size);
    ASSERT_NE(buf->base(), nullptr) << size;
    EXPECT_TRUE(aligned(buf->base(), 64)) << size;
    EXPECT_EQ(buf->size(), size);
    EXPECT_EQ(&buf->type(), &type);
    EXPECT_EQ(buf->usage(), BufferUsage::any);
  }
}

TEST_F(CpuBufferTest, PlacedTensorsAreAligned) {
  Tensor& a = builder.input(DType::F32, {3, 5, 1, 1}, "a");
  Tensor& b = builder.input(DType::F16, {17, 3, 1, 1}, "b");
  Tensor& c = builder.input(DType::I32, {7, 1, 1, 1}, "c");
  const size_t off_b = align_up(a.nbytes());
  const size_t off_c = off_b + align_up(b.nbytes());
  auto buf = type.alloc(off_c + c.nbytes());
  buf->place_tensor(a, 0);
  buf->place_tensor(b, off_b);
  buf->place_tensor(c, off_c);
  for (const Tensor* t : {&a, &b, &c}) {
    EXPECT_EQ(t->buffer, buf.get());
    EXPECT_TRUE(aligned(t->data, 64)) << t->name;
  }
  EXPECT_EQ(buf->offset_of(c), off_c);
  expect_error([&] { buf->place_tensor(a, 8); }, ErrorCode::invalid_argument);
}

TEST_F(CpuBufferTest, SetGetRoundTrip) {
  Tensor& t = builder.input(DType::F32, {33, 3, 1, 1}, "t");
  auto buf = type.alloc(t.nbytes() + 64);
  buf->place_tensor(t, 64);
  const auto data = pattern(t.nbytes(), 3);
  buf->set_tensor(t, data.data(), 0, data.size());
  std::vector<uint8_t> back(data.size());
  buf->get_tensor(t, back.data(), 0, back.size());
  EXPECT_EQ(back, data);
  // The tensor's data pointer is a real host address.
  EXPECT_EQ(std::memcmp(t.data, data.data(), data.size()), 0);

  const auto part = pattern(10, 99);
  buf->set_tensor(t, part.data(), 20, part.size());
  std::vector<uint8_t> part_back(part.size());
  buf->get_tensor(t, part_back.data(), 20, part_back.size());
  EXPECT_EQ(part_back, part);
}

TEST_F(CpuBufferTest, RawWriteReadRoundTrip) {
  auto buf = type.alloc(300);
  const auto data = pattern(100, 1);
  buf->write(200, data.data(), data.size());
  std::vector<uint8_t> back(100);
  buf->read(200, back.data(), back.size());
  EXPECT_EQ(back, data);
}

TEST_F(CpuBufferTest, OutOfBoundsAccessThrowsNamingTheSizes) {
  Tensor& t = builder.input(DType::F32, {4, 1, 1, 1}, "small");
  auto buf = type.alloc(100);
  buf->place_tensor(t, 0);
  std::vector<uint8_t> bytes(200);
  Error e = expect_error([&] { buf->set_tensor(t, bytes.data(), 14, 4); }, ErrorCode::invalid_argument);
  EXPECT_NE(std::string(e.what()).find("16 bytes"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("small"), std::string::npos) << e.what();
  e = expect_error([&] { buf->write(90, bytes.data(), 20); }, ErrorCode::invalid_argument);
  EXPECT_NE(std::string(e.what()).find("100 bytes"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("CPU"), std::string::npos) << e.what();
  expect_error([&] { buf->read(101, bytes.data(), 0); }, ErrorCode::invalid_argument);
  expect_error([&] { buf->fill(0, 0, 101); }, ErrorCode::invalid_argument);
  expect_error([&] { buf->get_tensor(t, bytes.data(), 0, 17); }, ErrorCode::invalid_argument);
}

TEST_F(CpuBufferTest, MemsetTouchesOnlyTheRange) {
  Tensor& t = builder.input(DType::F32, {16, 1, 1, 1}, "t");
  auto buf = type.alloc(t.nbytes());
  buf->place_tensor(t, 0);
  buf->clear(0x11);
  buf->memset_tensor(t, 0xab, 8, 16);
  std::vector<uint8_t> back(t.nbytes());
  buf->get_tensor(t, back.data(), 0, back.size());
  for (size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i], (i >= 8 && i < 24) ? 0xab : 0x11) << i;
  }
}

TEST_F(CpuBufferTest, CopyTensorBetweenTwoBuffers) {
  Tensor& src = builder.input(DType::F16, {31, 2, 1, 1}, "src");
  Tensor& dst = builder.input(DType::F16, {31, 2, 1, 1}, "dst");
  auto a = type.alloc(src.nbytes());
  auto b = type.alloc(dst.nbytes() + 128);
  a->place_tensor(src, 0);
  b->place_tensor(dst, 128);
  const auto data = pattern(src.nbytes(), 42);
  a->set_tensor(src, data.data(), 0, data.size());
  ASSERT_TRUE(b->copy_tensor(src, dst));
  std::vector<uint8_t> back(data.size());
  b->get_tensor(dst, back.data(), 0, back.size());
  EXPECT_EQ(back, data);

  Tensor& other = builder.input(DType::F16, {30, 2, 1, 1}, "other");
  b->place_tensor(other, 0);
  expect_error([&] { b->copy_tensor(src, other); }, ErrorCode::invalid_argument);
}

TEST_F(CpuBufferTest, ViewsReadTheirSourceMemory) {
  Tensor& src = builder.input(DType::F32, {8, 2, 1, 1}, "src");
  Tensor& row1 = builder.view_node(Op::view, src, {8, 1, 1, 1}, src.nb, src.nb[1]);
  auto buf = type.alloc(src.nbytes());
  buf->place_tensor(src, 0);
  Buffer::init_view(row1);
  EXPECT_EQ(row1.buffer, buf.get());
  std::vector<float> values(16);
  std::iota(values.begin(), values.end(), 0.0f);
  buf->set_tensor(src, values.data(), 0, src.nbytes());
  std::vector<float> back(8);
  buf->get_tensor(row1, back.data(), 0, row1.nbytes());
  EXPECT_EQ(back, std::vector<float>(values.begin() + 8, values.end()));
}

TEST_F(CpuBufferTest, BufferFromAlignedHostPointerWrapsIt) {
  ASSERT_TRUE(cpu().caps().buffer_from_host_ptr);
  std::unique_ptr<void, FreeDeleter> mem(std::aligned_alloc(64, 256));
  ASSERT_NE(mem.get(), nullptr);
  auto buf = cpu().buffer_from_host_ptr(mem.get(), 256);
  EXPECT_EQ(buf->base(), mem.get());
  EXPECT_EQ(buf->size(), 256u);
  EXPECT_TRUE(buf->type().is_host());
  buf->clear(0x3c);
  const auto* bytes = static_cast<const uint8_t*>(mem.get());
  for (size_t i = 0; i < 256; ++i) ASSERT_EQ(bytes[i], 0x3c) << i;
  buf.reset();  // does not free the caller's memory (ASan would report a double free)
  EXPECT_EQ(bytes[0], 0x3c);
}

TEST_F(CpuBufferTest, BufferFromMisalignedHostPointerIsRejected) {
  std::unique_ptr<void, FreeDeleter> mem(std::aligned_alloc(64, 256));
  ASSERT_NE(mem.get(), nullptr);
  void* off = static_cast<char*>(mem.get()) + 8;
  const Error e = expect_error([&] { cpu().buffer_from_host_ptr(off, 128); }, ErrorCode::invalid_argument);
  const std::string msg = e.what();
  EXPECT_NE(msg.find("64 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("8 bytes past"), std::string::npos) << msg;
  EXPECT_NE(msg.find("aligned_alloc"), std::string::npos) << msg;
  expect_error([&] { cpu().buffer_from_host_ptr(nullptr, 64); }, ErrorCode::invalid_argument);
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

TEST_F(CpuBufferTest, AbsurdSizeIsOutOfMemoryNamingSizeAndDevice) {
  const size_t absurd = size_t{1} << 60;
  const Error e = expect_error([&] { type.alloc(absurd); }, ErrorCode::out_of_memory);
  const std::string msg = e.what();
  EXPECT_NE(msg.find(std::to_string(absurd)), std::string::npos) << msg;
  EXPECT_NE(msg.find("CPU"), std::string::npos) << msg;
  EXPECT_NE(msg.find("available"), std::string::npos) << msg;
}

TEST_F(CpuBufferTest, BeyondMaxSizeIsInvalidArgument) {
  expect_error([&] { type.alloc(type.max_size() + 1); }, ErrorCode::invalid_argument);
}

}  // namespace
}  // namespace bk
