// SPDX-License-Identifier: MIT
#include "bk/op_info.h"

#include "bk/ops.h"

namespace bk {
namespace {

// The bytes of t's elements, packed (a quantized type's are whole blocks).
size_t element_bytes(const Tensor& t) noexcept {
  return static_cast<size_t>(t.nelements() / dtype_block(t.type)) * dtype_size(t.type);
}

double elements(const Tensor& t) noexcept { return static_cast<double>(t.nelements()); }

// Result written, every source read once.
OpCost streaming(const Tensor& node, double flops_per_element) noexcept {
  OpCost c;
  c.flops = flops_per_element * elements(node);
  for (const Tensor* s : node.src) {
    if (s != nullptr) c.bytes_read += element_bytes(*s);
  }
  c.bytes_written = element_bytes(node);
  return c;
}

OpCost mul_mat_cost(const Tensor& node) noexcept {
  OpCost c = streaming(node, 0);
  const double k = static_cast<double>(node.src[0]->ne[0]);
  c.flops = 2.0 * k * elements(node);  // M*N*C2*C3 outputs, K terms each
  return c;
}

OpCost rope_cost(const Tensor& node) noexcept {
  OpCost c = streaming(node, 0);
  const double rotated = elements(node) / static_cast<double>(node.ne[0]) * rope_params(node).n_dims;
  c.flops = 3.0 * rotated;
  return c;
}

OpCost get_rows_cost(const Tensor& node) noexcept {
  const Tensor& table = *node.src[0];
  OpCost c;
  c.bytes_read = static_cast<size_t>(node.nrows()) * table.row_bytes() + element_bytes(*node.src[1]);
  c.bytes_written = element_bytes(node);
  return c;
}

OpCost soft_max_cost(const Tensor& node) noexcept {
  OpCost c = streaming(node, 5);
  if (const Tensor* mask = node.src[1]; mask != nullptr) {
    // Rows of the mask past a's ne[1] are never read.
    const auto rows = static_cast<size_t>(node.ne[1] * mask->ne[2] * mask->ne[3]);
    c.bytes_read = element_bytes(*node.src[0]) + rows * mask->row_bytes();
    c.flops += elements(node);
  }
  return c;
}

OpCost cpy_cost(const Tensor& node) noexcept {
  OpCost c;
  c.bytes_read = element_bytes(*node.src[0]);  // src[1] is only the destination
  c.bytes_written = element_bytes(node);
  return c;
}

}  // namespace

OpCost& OpCost::operator+=(const OpCost& other) noexcept {
  flops += other.flops;
  bytes_read += other.bytes_read;
  bytes_written += other.bytes_written;
  return *this;
}

OpCost op_cost(const Tensor& node) noexcept {
  switch (node.op) {
    case Op::add:
    case Op::mul:
    case Op::scale:
    case Op::silu:
    case Op::gelu:
      return streaming(node, 1);
    case Op::mul_mat:
      return mul_mat_cost(node);
    case Op::rms_norm:
      return streaming(node, 3);
    case Op::soft_max:
      return soft_max_cost(node);
    case Op::rope:
      return rope_cost(node);
    case Op::get_rows:
      return get_rows_cost(node);
    case Op::cpy:
      return cpy_cost(node);
    case Op::cont:
      return streaming(node, 0);
    case Op::none:
    case Op::reshape:
    case Op::view:
    case Op::permute:
    case Op::transpose:
      return {};
  }
  return {};
}

OpCost graph_cost(const Graph& graph) noexcept {
  OpCost total;
  for (const Tensor* node : graph.nodes()) total += op_cost(*node);
  return total;
}

}  // namespace bk
