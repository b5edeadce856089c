// SPDX-License-Identifier: MIT
#pragma once
// Helpers of the device contracts: byte patterns, tensors placed in a buffer, catching a
// bk::Error and checking what it says. Everything goes through the public interfaces only.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bk/buffer.h"
#include "bk/device.h"
#include "bk/error.h"
#include "bk/graph.h"
#include "bk/tensor.h"

namespace bk::contract {

inline constexpr size_t kKiB = size_t{1} << 10;
inline constexpr size_t kMiB = size_t{1} << 20;

// Deterministic bytes that differ at every position and between seeds.
std::vector<uint8_t> pattern(size_t size, uint32_t seed);

size_t round_up(size_t n, size_t align);
bool is_aligned(const void* p, size_t align);

// A contiguous 1-D f32 tensor of n bytes (n divisible by 4), not placed.
Tensor bytes_tensor(size_t n, std::string name);

// A buffer of `type` with one bytes_tensor of n bytes placed at `offset` (rounded up to the
// buffer type's alignment); the buffer has `slack` bytes after the tensor.
struct Placed {
  std::unique_ptr<Buffer> buffer;
  Tensor tensor;
};
Placed placed(BufferType& type, size_t n, const std::string& name, size_t offset = 0, size_t slack = 0);

// The tensor's bytes, read through its buffer.
std::vector<uint8_t> contents(const Tensor& tensor);
// The buffer's bytes [offset, offset + size).
std::vector<uint8_t> bytes_of(const Buffer& buffer, size_t offset, size_t size);

// Places every leaf and non-view node of `graph` in one buffer of `type` at aligned offsets and
// points the views into it.
std::unique_ptr<Buffer> place_graph(BufferType& type, Graph& graph);

// The CPU device, and some device of the registry other than `device`.
Device& cpu();
Device& other_device(const Device& device);

// The bk::Error fn throws, or nothing (anything else that is thrown propagates).
template <typename Fn>
std::optional<Error> thrown(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

// Adds a failure unless fn throws Error(code) whose message holds every needle; `what` says
// what was called.
template <typename Fn>
void expect_error(Fn&& fn, ErrorCode code, const std::string& what,
                  std::initializer_list<std::string> needles = {}) {
  const std::optional<Error> e = thrown(fn);
  if (!e) {
    ADD_FAILURE() << what << ": expected Error(" << error_code_name(code) << "), nothing was thrown";
    return;
  }
  EXPECT_EQ(e->code(), code) << what << ": " << e->what();
  for (const std::string& needle : needles) {
    EXPECT_NE(std::string(e->what()).find(needle), std::string::npos)
        << what << ": the message should name '" << needle << "': " << e->what();
  }
}

}  // namespace bk::contract
