// SPDX-License-Identifier: MIT
#pragma once
// Shared helpers for the Vulkan tests: the plugin is loaded for real, through a Registry that
// searches only the build's plugin folder, and the device under test is Vulkan0. CMake pins the
// driver (lavapipe) and the other environment each test executable needs.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bk/buffer.h"
#include "bk/cpu.h"
#include "bk/device.h"
#include "bk/error.h"
#include "bk/registry.h"
#include "bk/tensor.h"

namespace bk::test {

// One registry per test process: the plugin's reg is process-wide anyway.
inline Registry& vulkan_registry() {
  static Registry registry(RegistryOptions{.builtin_regs = {&cpu_reg()},
                                           .load_plugins = true,
                                           .search_path = {BK_TEST_PLUGIN_DIR},
                                           .plugin_names = {"vulkan"}});
  return registry;
}

inline const PluginAttempt* vulkan_attempt() {
  for (const PluginAttempt& a : vulkan_registry().plugin_report()) {
    if (a.name == "vulkan") return &a;
  }
  return nullptr;
}

inline std::string vulkan_status() {
  BackendReg* reg = vulkan_registry().find_reg("Vulkan");
  return reg != nullptr ? reg->status() : std::string("Vulkan plugin not registered");
}

// Vulkan0, or nullptr when the machine has no Vulkan device (the test then skips).
inline Device* vulkan_device() { return vulkan_registry().find_device("Vulkan0"); }

#define BK_REQUIRE_VULKAN_DEVICE(var)              \
  ::bk::Device* var = ::bk::test::vulkan_device(); \
  if (var == nullptr) GTEST_SKIP() << "no Vulkan device: " << ::bk::test::vulkan_status()

// Deterministic bytes that differ at every position and between seeds.
inline std::vector<uint8_t> pattern(size_t size, uint32_t seed) {
  std::vector<uint8_t> out(size);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<uint8_t>(x);
  }
  return out;
}

// A contiguous 1-D tensor of n bytes (I8-like, stored as F32 elements: n must divide by 4).
inline Tensor bytes_tensor(size_t n, std::string name) {
  Tensor t;
  t.type = DType::F32;
  t.ne = {static_cast<int64_t>(n / 4), 1, 1, 1};
  t.nb = packed_strides(t.type, t.ne);
  t.name = std::move(name);
  return t;
}

// A buffer of `type` holding one bytes_tensor of n bytes at its start.
struct PlacedBytes {
  std::unique_ptr<Buffer> buffer;
  Tensor tensor;
};

inline PlacedBytes placed(BufferType& type, size_t n, const std::string& name) {
  PlacedBytes p{type.alloc(n), bytes_tensor(n, name)};
  p.buffer->place_tensor(p.tensor, 0);
  return p;
}

template <typename F>
ErrorCode error_code_of(F&& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message != nullptr) *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "expected a bk::Error, nothing was thrown";
  return ErrorCode::check_failed;
}

}  // namespace bk::test
