// SPDX-License-Identifier: MIT
#include "sched/graph_signature.h"

#include <array>
#include <cstddef>

#include "bk/buffer.h"

namespace bk {
namespace {

const BufferType* memory_of(const Tensor& t) noexcept {
  return t.buffer != nullptr ? &t.buffer->type() : nullptr;
}

// Every element compared, no early exit: the compiler makes it a few vector compares, where
// std::array's == calls memcmp.
template <typename T, size_t N>
bool same_elements(const std::array<T, N>& a, const std::array<T, N>& b) noexcept {
  bool same = true;
  for (size_t i = 0; i < N; ++i) same &= a[i] == b[i];
  return same;
}

}  // namespace

bool GraphSignature::same(const Entry& e, const Tensor& t) noexcept {
  return e.tensor == &t && e.type == t.type && e.op == t.op && e.flags == t.flags &&
         same_elements(e.ne, t.ne) && same_elements(e.nb, t.nb) && same_elements(e.params, t.params) &&
         same_elements(e.src, t.src) && e.view_src == t.view_src && e.view_offset == t.view_offset &&
         e.memory == memory_of(t);
}

void GraphSignature::fill(Entry& e, const Tensor& t) noexcept {
  e.tensor = &t;
  e.type = t.type;
  e.op = t.op;
  e.flags = t.flags;
  e.ne = t.ne;
  e.nb = t.nb;
  e.params = t.params;
  e.src = t.src;
  e.view_src = t.view_src;
  e.view_offset = t.view_offset;
  e.memory = memory_of(t);
}

void GraphSignature::record(const Graph& graph) {
  const auto leafs = graph.leafs();
  const auto nodes = graph.nodes();
  leafs_ = leafs.size();
  entries_.resize(leafs.size() + nodes.size());
  Entry* e = entries_.data();
  for (const Tensor* t : leafs) fill(*e++, *t);
  for (const Tensor* t : nodes) fill(*e++, *t);
  valid_ = true;
}

bool GraphSignature::matches(const Graph& graph) const noexcept {
  const auto leafs = graph.leafs();
  const auto nodes = graph.nodes();
  if (!valid_ || leafs.size() != leafs_ || leafs.size() + nodes.size() != entries_.size()) return false;
  const Entry* e = entries_.data();
  for (const Tensor* t : leafs) {
    if (!same(*e++, *t)) return false;
  }
  for (const Tensor* t : nodes) {
    if (!same(*e++, *t)) return false;
  }
  return true;
}

void GraphSignature::clear() noexcept { valid_ = false; }

}  // namespace bk
