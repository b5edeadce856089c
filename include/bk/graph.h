// SPDX-License-Identifier: MIT
#pragma once
// Graph: owns its tensors and orders them for compute.
//
// A graph is built once with GraphBuilder and then evaluated many times. Tensors live as long
// as the graph (their addresses never change). After build(), nodes() lists every tensor that
// computes something (op != none), sources before users, and leafs() lists the inputs, weights
// and constants the nodes read. Not thread-safe: one thread builds, then any thread reads.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bk/api.h"
#include "bk/tensor.h"

namespace bk {

class BK_API Graph {
 public:
  Graph() = default;
  Graph(Graph&&) noexcept = default;
  Graph& operator=(Graph&&) noexcept = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  std::span<Tensor* const> nodes() const noexcept { return nodes_; }
  std::span<Tensor* const> leafs() const noexcept { return leafs_; }
  std::span<Tensor* const> outputs() const noexcept { return outputs_; }
  size_t tensor_count() const noexcept { return tensors_.size(); }
  // The tensor with this name, or nullptr.
  Tensor* find(std::string_view name) const noexcept;

  // A graph over nodes that another graph owns, in the given order (a scheduler split): it
  // owns no tensors, and the owner must outlive it. leafs() and outputs() are empty.
  static Graph borrow(std::span<Tensor* const> nodes);

 private:
  friend class GraphBuilder;
  std::vector<std::unique_ptr<Tensor>> tensors_;
  std::vector<Tensor*> nodes_;
  std::vector<Tensor*> leafs_;
  std::vector<Tensor*> outputs_;
};

// Creates tensors and, with build(), turns them into a Graph. The op functions in ops.h take a
// builder and add nodes to it.
class BK_API GraphBuilder {
 public:
  GraphBuilder();

  // A leaf the caller sets before compute (flagged input).
  Tensor& input(DType type, const Shape& ne, std::string name);
  // A leaf holding model parameters (flagged weight).
  Tensor& weight(DType type, const Shape& ne, std::string name);
  // A node with the given op and sources; its strides are packed. Ops in ops.h use this after
  // checking shapes; it does no checking itself.
  Tensor& node(Op op, DType type, const Shape& ne, std::initializer_list<Tensor*> sources);
  // A node that aliases src's memory with its own shape and strides (reshape, view, permute,
  // transpose).
  Tensor& view_node(Op op, Tensor& src, const Shape& ne, const Strides& nb, size_t offset);

  // Flags each output and orders everything they depend on. The builder is empty afterwards.
  // Throws Error(invalid_argument) when an output does not belong to this builder.
  Graph build(std::span<Tensor* const> outputs);
  Graph build(std::initializer_list<Tensor*> outputs);

 private:
  Tensor& leaf(DType type, const Shape& ne, std::string name, uint32_t flags);
  Tensor& add(std::unique_ptr<Tensor> tensor);
  Graph graph_;
};

}  // namespace bk
