// SPDX-License-Identifier: MIT
#include "probe/verify/reference.h"

#include <fmt/format.h>

#include <array>

#include "bk/error.h"
#include "probe/verify/quant_values.h"
#include "probe/verify/reference_ops.h"

namespace bk::verify {
namespace {

const Tensor& root_of(const Tensor& t) noexcept { return t.view_src != nullptr ? *t.view_src : t; }

size_t slot_offset(const Tensor& t) noexcept { return t.is_view() ? t.view_offset / dtype_size(t.type) : 0; }

std::array<size_t, kMaxDims> element_strides(const Tensor& t) noexcept {
  std::array<size_t, kMaxDims> s{};
  if (is_quantized(t.type)) {  // always packed (ops refuse views of blocks): in element order
    s[0] = 1;
    for (size_t i = 1; i < kMaxDims; ++i) s[i] = s[i - 1] * static_cast<size_t>(t.ne[i - 1]);
    return s;
  }
  for (size_t i = 0; i < kMaxDims; ++i) s[i] = t.nb[i] / dtype_size(t.type);
  return s;
}

std::string label(const Tensor& t) {
  return fmt::format("'{}' {} {}", t.name, dtype_name(t.type), t.shape_string());
}

[[noreturn]] void not_in_graph(const Tensor& t) {
  throw Error(ErrorCode::invalid_argument,
              fmt::format("reference: tensor {} is not part of the evaluated graph", label(t)));
}

}  // namespace

double round_to(DType type, double value) noexcept {
  if (type == DType::F32) return static_cast<double>(static_cast<float>(value));  // the common case, inline
  std::array<unsigned char, 8> bytes{};
  store_from_double(type, bytes.data(), value);
  return load_as_double(type, bytes.data());
}

Reference::Reference(const Graph& graph, LeafValues leafs) : Reference(graph, std::move(leafs), false) {}

Reference::Reference(const Graph& graph, LeafValues leafs, Stored)
    : Reference(graph, std::move(leafs), true) {}

Reference::Reference(const Graph& graph, LeafValues leafs, bool stored) {
  for (const Tensor* leaf : graph.leafs()) {
    const auto it = leafs.find(leaf);
    if (it == leafs.end() || it->second.size() != static_cast<size_t>(leaf->nelements())) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("reference: leaf {} needs {} values, got {}", label(*leaf), leaf->nelements(),
                              it == leafs.end() ? 0 : it->second.size()));
    }
    if (is_quantized(leaf->type)) {  // what the device computes with: the values through the blocks
      storage_[leaf] =
          Storage{leaf->type, stored ? std::move(it->second) : quantized_round_trip(leaf->type, it->second)};
      continue;
    }
    if (leaf->is_contiguous() && !leaf->is_view()) {  // slots are the values in logical order
      Storage& s = storage_[leaf] = Storage{leaf->type, std::move(it->second)};
      for (double& v : s.slots) v = round_to(s.type, v);
      continue;
    }
    storage_[leaf] = Storage{leaf->type, std::vector<double>(leaf->nbytes() / dtype_size(leaf->type))};
    store(*leaf, it->second);
  }
  for (const Tensor* node : graph.nodes()) {
    if (op_is_view(node->op)) continue;  // aliases memory that is already there
    if (!node->is_view()) {
      storage_[node] = Storage{node->type, std::vector<double>(node->nbytes() / dtype_size(node->type))};
    }
    std::array<Elements, kMaxSources> srcs{};
    for (size_t i = 0; i < kMaxSources; ++i) {
      const Tensor* s = node->src[i];
      if (s == nullptr) continue;
      srcs[i] = Elements{storage_of(*s).slots.data() + slot_offset(*s), element_strides(*s), s->ne};
    }
    store(*node, compute_op(*node, srcs));
  }
}

const Reference::Storage& Reference::storage_of(const Tensor& tensor) const {
  const auto it = storage_.find(&root_of(tensor));
  if (it == storage_.end()) not_in_graph(tensor);
  return it->second;
}

Reference::Storage& Reference::storage_of(const Tensor& tensor) {
  const auto it = storage_.find(&root_of(tensor));
  if (it == storage_.end()) not_in_graph(tensor);
  return it->second;
}

void Reference::store(const Tensor& tensor, const Values& values) {
  Storage& s = storage_of(tensor);
  const size_t base = slot_offset(tensor);
  const auto st = element_strides(tensor);
  const Shape& ne = tensor.ne;
  size_t k = 0;
  for (int64_t i3 = 0; i3 < ne[3]; ++i3)
    for (int64_t i2 = 0; i2 < ne[2]; ++i2)
      for (int64_t i1 = 0; i1 < ne[1]; ++i1)
        for (int64_t i0 = 0; i0 < ne[0]; ++i0) {
          const size_t slot = base + static_cast<size_t>(i0) * st[0] + static_cast<size_t>(i1) * st[1] +
                              static_cast<size_t>(i2) * st[2] + static_cast<size_t>(i3) * st[3];
          s.slots[slot] = round_to(s.type, values[k++]);
        }
}

Values Reference::values(const Tensor& tensor) const {
  const Storage& s = storage_of(tensor);
  const Elements e{s.slots.data() + slot_offset(tensor), element_strides(tensor), tensor.ne};
  Values out(static_cast<size_t>(tensor.nelements()));
  for (size_t k = 0; k < out.size(); ++k) out[k] = e.flat(static_cast<int64_t>(k));
  return out;
}

}  // namespace bk::verify
