// SPDX-License-Identifier: MIT
#pragma once
// Test helper: a graph placed in one CPU buffer (leafs and nodes packed one after another, views
// pointed at their sources), with float access by logical index.

#include <cstring>
#include <memory>
#include <vector>

#include "bk/buffer.h"
#include "bk/cpu.h"
#include "bk/device.h"
#include "bk/graph.h"

namespace bk::test {

inline Device& cpu_device() { return *cpu_reg().devices().at(0); }

class CpuGraph {
 public:
  explicit CpuGraph(Graph& g) : graph_(&g) {
    BufferType& type = cpu_device().buffer_type();
    std::vector<Tensor*> owners(g.leafs().begin(), g.leafs().end());
    for (Tensor* n : g.nodes()) {
      if (!n->is_view()) owners.push_back(n);
    }
    size_t size = 0;
    std::vector<size_t> offsets;
    for (Tensor* t : owners) {
      size = (size + 63) / 64 * 64;
      offsets.push_back(size);
      size += t->nbytes();
    }
    buffer_ = type.alloc(size + 64);
    for (size_t i = 0; i < owners.size(); ++i) buffer_->place_tensor(*owners[i], offsets[i]);
    for (Tensor* n : g.nodes()) {
      if (n->is_view()) Buffer::init_view(*n);
    }
    buffer_->clear(0xFF);  // NaN everywhere until written
  }

  // Element i (logical order) of t as float.
  static float get(const Tensor& t, int64_t i) {
    const int64_t i0 = i % t.ne[0], r = i / t.ne[0];
    const int64_t i1 = r % t.ne[1], i2 = (r / t.ne[1]) % t.ne[2], i3 = r / (t.ne[1] * t.ne[2]);
    const auto* p =
        static_cast<const unsigned char*>(t.data) + i0 * t.nb[0] + i1 * t.nb[1] + i2 * t.nb[2] + i3 * t.nb[3];
    return static_cast<float>(load_as_double(t.type, p));
  }
  static void set(Tensor& t, int64_t i, double v) {
    const int64_t i0 = i % t.ne[0], r = i / t.ne[0];
    const int64_t i1 = r % t.ne[1], i2 = (r / t.ne[1]) % t.ne[2], i3 = r / (t.ne[1] * t.ne[2]);
    auto* p = static_cast<unsigned char*>(t.data) + i0 * t.nb[0] + i1 * t.nb[1] + i2 * t.nb[2] + i3 * t.nb[3];
    store_from_double(t.type, p, v);
  }

 private:
  Graph* graph_;
  std::unique_ptr<Buffer> buffer_;
};

}  // namespace bk::test
