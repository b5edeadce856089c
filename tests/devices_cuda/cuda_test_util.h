// SPDX-License-Identifier: MIT
#pragma once
// Shared by the CUDA plugin tests: a registry holding only the CUDA plugin from the build tree,
// a fixture that skips without a GPU, and placing a graph in one device buffer.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bk/buffer.h"
#include "bk/cpu.h"
#include "bk/graph.h"
#include "bk/registry.h"

namespace bk::cuda_test {

inline Registry make_cuda_registry() {
  return Registry(RegistryOptions{.builtin_regs = {&cpu_reg()},
                                  .load_plugins = true,
                                  .search_path = {},  // the default: beside libbk, in the tree or a bundle
                                  .plugin_names = {"cuda"}});
}

// One per test process (ctest runs every case in its own process).
inline Registry& registry() {
  static Registry r = make_cuda_registry();
  return r;
}

inline BackendReg* cuda_reg() { return registry().find_reg("CUDA"); }

inline std::vector<Device*> cuda_devices() {
  BackendReg* reg = cuda_reg();
  return reg != nullptr ? reg->devices() : std::vector<Device*>{};
}

// Tests that need a GPU derive from this; without one they are skipped with the reg's reason.
class CudaDeviceTest : public testing::Test {
 protected:
  void SetUp() override {
    BackendReg* reg = cuda_reg();
    ASSERT_NE(reg, nullptr) << "the CUDA plugin did not load";
    if (reg->devices().empty()) GTEST_SKIP() << "no CUDA device: " << reg->status();
    device_ = reg->devices().front();
  }
  Device& device() { return *device_; }

 private:
  Device* device_ = nullptr;
};

// Places every leaf and non-view node of `graph` in one buffer of `type` and points the views
// into it.
inline std::unique_ptr<Buffer> place_graph(BufferType& type, Graph& graph) {
  std::vector<Tensor*> owners(graph.leafs().begin(), graph.leafs().end());
  for (Tensor* n : graph.nodes()) {
    if (!n->is_view()) owners.push_back(n);
  }
  const size_t align = type.alignment();
  std::vector<size_t> offsets;
  size_t size = 0;
  for (const Tensor* t : owners) {
    size = (size + align - 1) / align * align;
    offsets.push_back(size);
    size += type.alloc_size(*t);
  }
  auto buffer = type.alloc(std::max(size, align));
  for (size_t i = 0; i < owners.size(); ++i) buffer->place_tensor(*owners[i], offsets[i]);
  for (Tensor* n : graph.nodes()) {
    if (n->is_view()) Buffer::init_view(*n);
  }
  return buffer;
}

}  // namespace bk::cuda_test
