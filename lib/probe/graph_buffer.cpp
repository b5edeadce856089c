// SPDX-License-Identifier: MIT
#include "probe/graph_buffer.h"

#include <algorithm>
#include <vector>

#include "bk/tensor.h"

namespace bk {

namespace {

size_t align_up(size_t n, size_t align) { return (n + align - 1) / align * align; }

// Tensors that own memory: leafs and nodes that are not views, each once.
std::vector<Tensor*> owners(const Graph& graph) {
  std::vector<Tensor*> out(graph.leafs().begin(), graph.leafs().end());
  for (Tensor* node : graph.nodes()) {
    if (!node->is_view()) out.push_back(node);
  }
  return out;
}

}  // namespace

std::unique_ptr<Buffer> place_graph_poisoned(BufferType& type, Graph& graph) {
  const size_t align = std::max<size_t>(type.alignment(), 1);
  const std::vector<Tensor*> tensors = owners(graph);
  std::vector<size_t> offsets;
  size_t size = 0;
  for (const Tensor* t : tensors) {
    size = align_up(size, align);
    offsets.push_back(size);
    size += type.alloc_size(*t);
  }
  std::unique_ptr<Buffer> buffer = type.alloc(std::max(size, align));
  buffer->set_usage(BufferUsage::compute);
  for (size_t i = 0; i < tensors.size(); ++i) buffer->place_tensor(*tensors[i], offsets[i]);
  for (Tensor* node : graph.nodes()) {
    if (node->is_view()) Buffer::init_view(*node);
  }
  buffer->clear(0xFF);
  return buffer;
}

}  // namespace bk
