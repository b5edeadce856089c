// SPDX-License-Identifier: MIT
#pragma once
// GraphSignature: what the scheduler's passes and memory plan read from a graph's tensors,
// recorded when it schedules the graph, so that scheduling the same graph again, unchanged,
// keeps the last schedule and plan instead of deriving them again. Everything that can change
// a decision or an offset is in it: the tensors and their order, dtype, shape, strides, op and
// its parameters, sources, view source and offset, flags, and the buffer type of memory the
// tensor already has. Not in it: the data (the scheduler never reads it) and the names (they
// decide nothing; the copies of split inputs are named when a graph is scheduled). Compared
// field by field, so any change of those counts. Not thread-safe.

#include <array>
#include <cstdint>
#include <vector>

#include "bk/graph.h"

namespace bk {

class BufferType;

class GraphSignature {
 public:
  // Records graph's leafs, then its nodes.
  void record(const Graph& graph);
  // Whether graph's tensors are the recorded ones, unchanged; false after clear().
  bool matches(const Graph& graph) const noexcept;
  void clear() noexcept;

 private:
  struct Entry {
    const Tensor* tensor = nullptr;
    DType type = DType::F32;
    Op op = Op::none;
    uint32_t flags = 0;
    Shape ne{};
    Strides nb{};
    std::array<int32_t, kMaxOpParams> params{};
    std::array<Tensor*, kMaxSources> src{};
    Tensor* view_src = nullptr;
    size_t view_offset = 0;
    const BufferType* memory = nullptr;
  };
  static bool same(const Entry& e, const Tensor& t) noexcept;
  static void fill(Entry& e, const Tensor& t) noexcept;

  std::vector<Entry> entries_;
  size_t leafs_ = 0;
  bool valid_ = false;
};

}  // namespace bk
