// SPDX-License-Identifier: MIT
#pragma once
// SchedGraph: the dense view of a Graph that the scheduler's passes and the graph allocator work
// on. Every tensor gets an id: the leafs first, in graph.leafs() order, then the nodes in
// execution order, so node i of graph.nodes() has id leaf_count + i. Sources and view storage
// are ids too, resolved once, so that no pass looks up a pointer again.
//
// build() reuses its vectors' capacity: rebuilding for every evaluation allocates nothing once
// the graph sizes have been seen. Reads the graph; never changes it.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "bk/graph.h"
#include "sched/tensor_index.h"

namespace bk {

class SchedGraph {
 public:
  // Throws Error(invalid_argument) when a node's source is not part of the graph.
  void build(const Graph& graph);

  const Graph* graph() const noexcept { return graph_; }
  int32_t size() const noexcept { return static_cast<int32_t>(tensors_.size()); }
  int32_t leaf_count() const noexcept { return leaf_count_; }
  int32_t node_count() const noexcept { return size() - leaf_count_; }
  int32_t node_id(int32_t node_index) const noexcept { return leaf_count_ + node_index; }
  bool is_leaf(int32_t id) const noexcept { return id < leaf_count_; }

  Tensor& tensor(int32_t id) const noexcept { return *tensors_[static_cast<size_t>(id)]; }
  // Source ids of a tensor, -1 for an empty slot.
  const std::array<int32_t, kMaxSources>& sources(int32_t id) const noexcept {
    return src_[static_cast<size_t>(id)];
  }
  // The id of the tensor whose memory it uses: itself, or its view source (views, cpy).
  int32_t storage(int32_t id) const noexcept { return storage_[static_cast<size_t>(id)]; }
  // A view op (reshape, view, permute, transpose): computes nothing. Kept dense, like storage,
  // because every pass asks it of every node and the Tensor is a cache miss away.
  bool is_view(int32_t id) const noexcept { return view_[static_cast<size_t>(id)] != 0; }
  int32_t find(const Tensor* t) const noexcept { return index_.find(t); }

 private:
  const Graph* graph_ = nullptr;
  int32_t leaf_count_ = 0;
  std::vector<Tensor*> tensors_;
  std::vector<std::array<int32_t, kMaxSources>> src_;
  std::vector<int32_t> storage_;
  std::vector<uint8_t> view_;
  TensorIndex index_;
};

}  // namespace bk
