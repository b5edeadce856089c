// SPDX-License-Identifier: MIT
#pragma once
// Running small graphs on Vulkan0 in the kernel tests: one buffer for every tensor that owns
// memory, packed at the buffer type's alignment from a start offset (so tests can put tensors
// in a later memory chunk), F32 values in and out.

#include <algorithm>
#include <memory>
#include <vector>

#include "bk/device.h"
#include "bk/graph.h"

namespace bk::test {

class PlacedGraph {
 public:
  // Places every leaf and non-view node of `graph` from byte `start` of a buffer of at least
  // `min_size` bytes.
  PlacedGraph(Device& device, Graph& graph, size_t start = 0, size_t min_size = 0) : graph_(graph) {
    BufferType& type = device.buffer_type();
    const size_t align = std::max<size_t>(type.alignment(), 1);
    std::vector<Tensor*> owners(graph.leafs().begin(), graph.leafs().end());
    for (Tensor* n : graph.nodes()) {
      if (!n->is_view()) owners.push_back(n);
    }
    std::vector<size_t> offsets;
    size_t size = start;
    for (const Tensor* t : owners) {
      size = (size + align - 1) / align * align;
      offsets.push_back(size);
      size += type.alloc_size(*t);
    }
    buffer_ = type.alloc(std::max({size, min_size, align}));
    for (size_t i = 0; i < owners.size(); ++i) buffer_->place_tensor(*owners[i], offsets[i]);
    for (Tensor* n : graph.nodes()) {
      if (n->is_view()) Buffer::init_view(*n);
    }
  }

  Buffer& buffer() { return *buffer_; }

  static void set(Tensor& t, const std::vector<float>& values) {
    t.buffer->set_tensor(t, values.data(), 0, values.size() * sizeof(float));
  }
  static std::vector<float> get(const Tensor& t) {
    std::vector<float> out(static_cast<size_t>(t.nelements()));
    t.buffer->get_tensor(t, out.data(), 0, out.size() * sizeof(float));
    return out;
  }

 private:
  Graph& graph_;
  std::unique_ptr<Buffer> buffer_;
};

}  // namespace bk::test
