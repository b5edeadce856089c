// SPDX-License-Identifier: MIT
#include "probe/verify/limits.h"

#include <algorithm>
#include <unordered_map>

namespace bk::verify {

double limit_for(const Tensor& node) noexcept {
  const Tensor* a = node.src[0];
  switch (node.op) {
    case Op::add:
    case Op::mul:
    case Op::scale:
      return arithmetic_limit(node.type);
    case Op::silu:
    case Op::gelu:
    case Op::rms_norm:
    case Op::soft_max:
      return transcendental_limit(node.type);
    case Op::rope:
      return rope_limit(node.type);
    case Op::mul_mat:
      return mul_mat_limit(a->type);
    case Op::get_rows:
    case Op::cpy:
    case Op::cont:
      return copy_limit(a->type, node.type);
    case Op::none:
    case Op::reshape:
    case Op::view:
    case Op::permute:
    case Op::transpose:
      break;
  }
  return kExact;
}

double graph_limit(const Graph& graph) {
  std::unordered_map<const Tensor*, double> carried;  // leafs are absent: 0
  for (const Tensor* node : graph.nodes()) {          // sources come before their readers
    double inherited = 0;
    for (const Tensor* s : node->src) {
      if (s == nullptr) continue;
      const auto it = carried.find(s);
      if (it != carried.end()) inherited = std::max(inherited, it->second);
    }
    carried[node] = inherited + limit_for(*node);
  }
  double limit = 0;
  for (const Tensor* out : graph.outputs()) {
    const auto it = carried.find(out);
    if (it != carried.end()) limit = std::max(limit, it->second);
  }
  return limit;
}

}  // namespace bk::verify
