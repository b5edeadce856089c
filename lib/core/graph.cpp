// SPDX-License-Identifier: MIT
#include "bk/graph.h"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "bk/error.h"

namespace bk {
namespace {

void check_shape(DType type, const Shape& ne, const std::string& name) {
  for (int64_t n : ne) {
    if (n < 0) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("tensor '{}': dimension {} is negative; sizes must be >= 0", name, n));
    }
  }
  if (ne[0] % dtype_block(type) != 0) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("tensor '{}': a {} row holds whole blocks of {} elements, and ne[0] = {} is not a "
                    "multiple of {}",
                    name, dtype_name(type), dtype_block(type), ne[0], dtype_block(type)));
  }
}

// Post-order depth-first walk from each output, iterative so that deep graphs cannot overflow
// the stack: a tensor is emitted after all of its sources (and its view source).
void order_topologically(std::span<Tensor* const> outputs, std::vector<Tensor*>& nodes,
                         std::vector<Tensor*>& leafs) {
  std::unordered_set<const Tensor*> visited;
  struct Frame {
    Tensor* tensor;
    int next;  // next source index to visit; kMaxSources means the view source
  };
  std::vector<Frame> stack;
  for (Tensor* out : outputs) {
    if (!visited.insert(out).second) continue;
    stack.push_back({out, 0});
    while (!stack.empty()) {
      Frame& top = stack.back();
      Tensor* child = nullptr;
      while (top.next <= kMaxSources && child == nullptr) {
        Tensor* candidate =
            top.next < kMaxSources ? top.tensor->src[static_cast<size_t>(top.next)] : top.tensor->view_src;
        ++top.next;
        if (candidate != nullptr && visited.insert(candidate).second) child = candidate;
      }
      if (child != nullptr) {
        stack.push_back({child, 0});
        continue;
      }
      Tensor* done = top.tensor;
      stack.pop_back();
      (done->op == Op::none ? leafs : nodes).push_back(done);
    }
  }
}

}  // namespace

Tensor* Graph::find(std::string_view name) const noexcept {
  for (const auto& t : tensors_) {
    if (t->name == name) return t.get();
  }
  return nullptr;
}

Graph Graph::borrow(std::span<Tensor* const> nodes) {
  Graph g;
  g.nodes_.assign(nodes.begin(), nodes.end());
  return g;
}

GraphBuilder::GraphBuilder() = default;

Tensor& GraphBuilder::add(std::unique_ptr<Tensor> tensor) {
  graph_.tensors_.push_back(std::move(tensor));
  return *graph_.tensors_.back();
}

Tensor& GraphBuilder::leaf(DType type, const Shape& ne, std::string name, uint32_t flags) {
  check_shape(type, ne, name);
  auto t = std::make_unique<Tensor>();
  t->type = type;
  t->ne = ne;
  t->nb = packed_strides(type, ne);
  t->name = std::move(name);
  t->flags = flags;
  return add(std::move(t));
}

Tensor& GraphBuilder::input(DType type, const Shape& ne, std::string name) {
  return leaf(type, ne, std::move(name), kTensorInput);
}

Tensor& GraphBuilder::weight(DType type, const Shape& ne, std::string name) {
  return leaf(type, ne, std::move(name), kTensorWeight);
}

Tensor& GraphBuilder::node(Op op, DType type, const Shape& ne, std::initializer_list<Tensor*> sources) {
  auto t = std::make_unique<Tensor>();
  t->op = op;
  t->type = type;
  t->ne = ne;
  t->nb = packed_strides(type, ne);
  size_t i = 0;
  for (Tensor* s : sources) t->src.at(i++) = s;
  t->name = fmt::format("{}-{}", op_name(op), graph_.tensors_.size());
  return add(std::move(t));
}

Tensor& GraphBuilder::view_node(Op op, Tensor& src, const Shape& ne, const Strides& nb, size_t offset) {
  Tensor& t = node(op, src.type, ne, {&src});
  t.nb = nb;
  t.view_src = src.view_src != nullptr ? src.view_src : &src;
  t.view_offset = offset + (src.view_src != nullptr ? src.view_offset : 0);
  return t;
}

Graph GraphBuilder::build(std::span<Tensor* const> outputs) {
  std::unordered_set<const Tensor*> owned;
  for (const auto& t : graph_.tensors_) owned.insert(t.get());
  for (Tensor* out : outputs) {
    if (out == nullptr || !owned.contains(out)) {
      throw Error(ErrorCode::invalid_argument,
                  "GraphBuilder::build: an output tensor was not created by this builder");
    }
    out->flags |= kTensorOutput;
  }
  Graph g = std::move(graph_);
  graph_ = Graph{};
  g.outputs_.assign(outputs.begin(), outputs.end());
  order_topologically(outputs, g.nodes_, g.leafs_);
  return g;
}

Graph GraphBuilder::build(std::initializer_list<Tensor*> outputs) {
  return build(std::span<Tensor* const>(outputs.begin(), outputs.size()));
}

}  // namespace bk
