// SPDX-License-Identifier: MIT
// Buffers: allocation and its failures, placing tensors, bounds, contents and copies
// (bk/buffer.h). Each check runs on the device's own buffer type.
#include <algorithm>
#include <cstring>

#include "contract_util.h"
#include "contracts.h"

namespace bk::contract {
namespace {

void expect_round_trip(Buffer& buffer, size_t offset, size_t size, uint32_t seed) {
  const std::vector<uint8_t> in = pattern(size, seed);
  buffer.write(offset, in.data(), size);
  EXPECT_TRUE(bytes_of(buffer, offset, size) == in) << "bytes [" << offset << ", " << offset + size << ") of "
                                                    << buffer.type().name() << " read back differ";
}

bool overlap(const Buffer& a, const Buffer& b) {
  const auto* pa = static_cast<const char*>(a.base());
  const auto* pb = static_cast<const char*>(b.base());
  return pa < pb + b.size() && pb < pa + a.size();
}

}  // namespace

// alloc(size) gives exactly size bytes at an aligned, non-null base (also for 0), in a range no
// other live buffer shares; past max_size() it is an invalid argument.
void buffer_alloc(Device& device) {
  BufferType& type = device.buffer_type();
  const size_t align = type.alignment();
  EXPECT_GT(align, 0u);
  EXPECT_EQ(align & (align - 1), 0u) << "alignment " << align << " is a power of two";
  std::vector<std::unique_ptr<Buffer>> live;
  for (size_t size :
       {size_t{0}, size_t{1}, size_t{3}, size_t{63}, size_t{65}, size_t{4097}, 64 * kKiB + 17}) {
    auto buffer = type.alloc(size);
    ASSERT_NE(buffer, nullptr) << size;
    EXPECT_EQ(buffer->size(), size);
    EXPECT_EQ(&buffer->type(), &type);
    EXPECT_EQ(buffer->usage(), BufferUsage::any);
    ASSERT_NE(buffer->base(), nullptr) << "a buffer of " << size << " bytes has a base address";
    EXPECT_TRUE(is_aligned(buffer->base(), align)) << buffer->base() << " for " << size << " bytes";
    for (const auto& other : live) {
      EXPECT_FALSE(overlap(*buffer, *other))
          << "two live buffers share addresses (" << size << " and " << other->size() << " bytes)";
    }
    live.push_back(std::move(buffer));
  }
  live.back()->set_usage(BufferUsage::weights);
  EXPECT_EQ(live.back()->usage(), BufferUsage::weights);
  live.front()->clear(0);  // an empty buffer clears nothing
  if (type.max_size() != SIZE_MAX) {
    expect_error([&] { type.alloc(type.max_size() + 1); }, ErrorCode::invalid_argument,
                 "alloc(max_size() + 1)", {device.name()});
  }
}

// A request the device cannot hold is an error, never a crash or a buffer; the device still works
// afterwards.
void alloc_failure(Device& device) {
  BufferType& type = device.buffer_type();
  std::vector<size_t> absurd = {SIZE_MAX / 2};
  const size_t total = device.memory().total;
  if (total <= SIZE_MAX - 4096) absurd.push_back(total + 4096);
  for (size_t size : absurd) {
    const std::optional<Error> e = thrown([&] { type.alloc(size); });
    ASSERT_TRUE(e.has_value()) << "alloc(" << size << ") succeeded on a device with " << total << " bytes";
    EXPECT_TRUE(e->code() == ErrorCode::out_of_memory || e->code() == ErrorCode::invalid_argument)
        << "alloc(" << size << "): " << error_code_name(e->code()) << ": " << e->what();
    EXPECT_NE(std::string(e->what()).find(device.name()), std::string::npos)
        << "the message names the device: " << e->what();
  }
  auto ok = type.alloc(64 * kKiB);
  expect_round_trip(*ok, 0, ok->size(), 1);
}

// place_tensor puts a tensor at an aligned offset; a misaligned offset or a tensor that does not
// fit is refused and leaves the tensor unplaced.
void placement(Device& device) {
  BufferType& type = device.buffer_type();
  const size_t align = type.alignment();
  GraphBuilder b;
  Tensor& x = b.input(DType::F32, {3, 5, 1, 1}, "x");
  Tensor& y = b.input(DType::F16, {17, 3, 1, 1}, "y");
  Tensor& z = b.input(DType::I32, {7, 1, 1, 1}, "z");
  const std::vector<Tensor*> tensors = {&x, &y, &z};
  std::vector<size_t> offsets;
  size_t end = 0;
  for (const Tensor* t : tensors) {
    EXPECT_GE(type.alloc_size(*t), t->nbytes()) << t->name;
    offsets.push_back(round_up(end, align));
    end = offsets.back() + type.alloc_size(*t);
  }
  auto buffer = type.alloc(end);
  for (size_t i = 0; i < tensors.size(); ++i) {
    Tensor& t = *tensors[i];
    buffer->place_tensor(t, offsets[i]);
    EXPECT_EQ(t.buffer, buffer.get()) << t.name;
    EXPECT_EQ(buffer->offset_of(t), offsets[i]) << t.name;
    EXPECT_EQ(static_cast<char*>(t.data) - static_cast<char*>(buffer->base()),
              static_cast<ptrdiff_t>(offsets[i]));
    EXPECT_TRUE(is_aligned(t.data, align)) << t.name;
  }
  Tensor loose = bytes_tensor(64, "loose");
  if (align > 1) {
    expect_error([&] { buffer->place_tensor(loose, 1); }, ErrorCode::invalid_argument,
                 "place_tensor at offset 1", {"loose"});
    EXPECT_EQ(loose.buffer, nullptr);
  }
  Tensor big = bytes_tensor(round_up(end, 4) + 4, "big");
  expect_error([&] { buffer->place_tensor(big, 0); }, ErrorCode::invalid_argument,
               "place_tensor past the end");
  EXPECT_EQ(big.buffer, nullptr);
  expect_error([&] { (void)buffer->offset_of(big); }, ErrorCode::invalid_argument,
               "offset_of an unplaced tensor");
}

// A view placed with init_view reads and writes its source's memory.
void views(Device& device) {
  GraphBuilder b;
  Tensor& src = b.input(DType::F32, {8, 2, 1, 1}, "src");
  Tensor& row1 = b.view_node(Op::view, src, {8, 1, 1, 1}, src.nb, src.nb[1]);
  auto buffer = device.buffer_type().alloc(device.buffer_type().alloc_size(src));
  buffer->place_tensor(src, 0);
  Buffer::init_view(row1);
  EXPECT_EQ(row1.buffer, buffer.get());
  EXPECT_EQ(buffer->offset_of(row1), src.nb[1]);
  std::vector<float> values(16);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) + 0.5f;
  buffer->set_tensor(src, values.data(), 0, src.nbytes());
  std::vector<float> row(8);
  buffer->get_tensor(row1, row.data(), 0, row1.nbytes());
  EXPECT_EQ(row, std::vector<float>(values.begin() + 8, values.end()));
  const std::vector<float> fresh(8, -2.0f);
  buffer->set_tensor(row1, fresh.data(), 0, row1.nbytes());
  std::vector<float> all(16);
  buffer->get_tensor(src, all.data(), 0, src.nbytes());
  EXPECT_EQ(std::vector<float>(all.begin(), all.begin() + 8),
            std::vector<float>(values.begin(), values.begin() + 8));
  EXPECT_EQ(std::vector<float>(all.begin() + 8, all.end()), fresh);
}

// Every access outside the buffer or the tensor, direct or through a stream, throws
// Error(invalid_argument) naming the buffer, its device and size (or the tensor and its size),
// and changes nothing.
void bounds(Device& device) {
  BufferType& type = device.buffer_type();
  const size_t at = round_up(2048, type.alignment());
  Placed p = placed(type, 1024, "bounded", at, 1024);
  Buffer& buffer = *p.buffer;
  Tensor& t = p.tensor;
  const size_t size = buffer.size();
  buffer.clear(0x5a);
  std::vector<uint8_t> bytes(2 * size, 0xa5);
  // The message names the buffer, its device and its size.
  const std::initializer_list<std::string> names = {"'" + type.name() + "'", device.name(),
                                                    std::to_string(size) + " bytes"};
  expect_error([&] { buffer.write(size - 100, bytes.data(), 200); }, ErrorCode::invalid_argument, "write",
               names);
  expect_error([&] { buffer.write(size + 1, bytes.data(), 0); }, ErrorCode::invalid_argument, "write", names);
  expect_error([&] { buffer.read(0, bytes.data(), size + 1); }, ErrorCode::invalid_argument, "read", names);
  expect_error([&] { buffer.read(size + 1, bytes.data(), 0); }, ErrorCode::invalid_argument, "read", names);
  expect_error([&] { buffer.fill(0, 0, size + 1); }, ErrorCode::invalid_argument, "fill", names);
  expect_error([&] { buffer.fill(SIZE_MAX, 0, 2); }, ErrorCode::invalid_argument, "fill", names);
  // Inside the buffer but outside the tensor: a missing check would write the neighbours. The
  // message names the tensor and its size.
  const std::initializer_list<std::string> tensor = {"'bounded'", "1024 bytes"};
  expect_error([&] { buffer.set_tensor(t, bytes.data(), 1000, 100); }, ErrorCode::invalid_argument,
               "set_tensor", tensor);
  expect_error([&] { buffer.get_tensor(t, bytes.data(), 0, 1025); }, ErrorCode::invalid_argument,
               "get_tensor", tensor);
  expect_error([&] { buffer.memset_tensor(t, 0, 1024, 1); }, ErrorCode::invalid_argument, "memset_tensor",
               tensor);
  // The same through a stream, also while it is busy (a device may check on another path then).
  auto backend = device.init_backend();
  Placed other = placed(type, 1024, "other");
  other.buffer->clear(0x5a);
  (void)backend->copy_tensor_async(*backend, other.tensor, t);
  expect_error([&] { backend->set_tensor_async(t, bytes.data(), 1000, 100); }, ErrorCode::invalid_argument,
               "set_tensor_async", tensor);
  expect_error([&] { backend->get_tensor_async(t, bytes.data(), 1, 1024); }, ErrorCode::invalid_argument,
               "get_tensor_async", tensor);
  Tensor unplaced = bytes_tensor(16, "unplaced");
  expect_error([&] { backend->set_tensor_async(unplaced, bytes.data(), 0, 16); }, ErrorCode::invalid_argument,
               "set_tensor_async into an unplaced tensor", {"unplaced"});
  backend->synchronize();
  buffer.write(size, bytes.data(), 0);  // empty ranges at the end are in bounds
  buffer.set_tensor(t, bytes.data(), 1024, 0);
  EXPECT_TRUE(bytes_of(buffer, 0, size) == std::vector<uint8_t>(size, 0x5a))
      << "a refused access changed bytes";
}

// Bytes written come back, whole and at odd offsets; fill, clear and memset_tensor touch exactly
// their range; tensor access lands at the tensor's place. Host buffers expose the bytes directly.
void round_trip(Device& device) {
  BufferType& type = device.buffer_type();
  const size_t n = 3 * kMiB + 123;
  auto buffer = type.alloc(n);
  expect_round_trip(*buffer, 0, n, 2);
  expect_round_trip(*buffer, 7, 1001, 3);
  expect_round_trip(*buffer, n - 3, 3, 4);
  expect_round_trip(*buffer, 1, n - 2, 5);

  buffer->clear(0x11);
  buffer->fill(3, 0x22, n - 10);
  const std::vector<uint8_t> filled = bytes_of(*buffer, 0, n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(filled[i], (i >= 3 && i < n - 7) ? 0x22 : 0x11) << "byte " << i << " after clear and fill";
  }

  Tensor t = bytes_tensor(4096, "t");
  const size_t at = round_up(8192, type.alignment());
  buffer->place_tensor(t, at);
  const std::vector<uint8_t> in = pattern(4096, 6);
  buffer->set_tensor(t, in.data(), 0, in.size());
  EXPECT_TRUE(bytes_of(*buffer, at, in.size()) == in) << "set_tensor writes at the tensor's offset";
  EXPECT_EQ(bytes_of(*buffer, at - 1, 1)[0], 0x22) << "set_tensor wrote before the tensor";
  buffer->memset_tensor(t, 0, 100, 10);
  const std::vector<uint8_t> back = contents(t);
  for (size_t i = 0; i < back.size(); ++i)
    ASSERT_EQ(back[i], (i >= 100 && i < 110) ? 0 : in[i]) << "byte " << i;
  std::vector<uint8_t> part(10);
  buffer->get_tensor(t, part.data(), 21, part.size());
  EXPECT_TRUE(std::equal(part.begin(), part.end(), in.begin() + 21));
  if (type.is_host()) {
    EXPECT_EQ(std::memcmp(t.data, back.data(), back.size()), 0) << "a host buffer's tensors are addressable";
  }
}

// Buffer::copy_tensor: between two buffers of the device it copies; from host memory it copies or
// says it cannot (and the caller stages); the CPU's buffers read only host memory. Sizes must
// match.
void copies(Device& device) {
  BufferType& type = device.buffer_type();
  const size_t n = 192 * kKiB + 68;
  Placed a = placed(type, n, "a");
  Placed b = placed(type, n, "b", 64, 64);
  const std::vector<uint8_t> first = pattern(n, 7);
  a.buffer->set_tensor(a.tensor, first.data(), 0, n);
  ASSERT_TRUE(b.buffer->copy_tensor(a.tensor, b.tensor)) << "a buffer reads its own device's buffers";
  EXPECT_TRUE(contents(b.tensor) == first);

  Placed host = placed(cpu().buffer_type(), n, "host");
  const std::vector<uint8_t> second = pattern(n, 8);
  host.buffer->set_tensor(host.tensor, second.data(), 0, n);
  if (b.buffer->copy_tensor(host.tensor, b.tensor)) {
    EXPECT_TRUE(contents(b.tensor) == second) << "host -> device";
  } else {
    EXPECT_TRUE(contents(b.tensor) == first) << "a refused copy changed the destination";
  }

  Placed back = placed(cpu().buffer_type(), n, "back");
  back.buffer->clear(0);
  const std::vector<uint8_t> now = contents(b.tensor);
  EXPECT_EQ(back.buffer->copy_tensor(b.tensor, back.tensor), type.is_host())
      << "the CPU's buffers read " << type.name() << " in place exactly when it is host memory";
  EXPECT_TRUE(contents(back.tensor) == (type.is_host() ? now : std::vector<uint8_t>(n, 0)));

  Placed small = placed(type, n - 4, "small");
  expect_error([&] { small.buffer->copy_tensor(a.tensor, small.tensor); }, ErrorCode::invalid_argument,
               "copy_tensor between different sizes", {"small"});
  Tensor unplaced = bytes_tensor(n, "unplaced");
  expect_error([&] { b.buffer->copy_tensor(unplaced, b.tensor); }, ErrorCode::invalid_argument,
               "copy_tensor from an unplaced tensor", {"unplaced"});
}

}  // namespace bk::contract
