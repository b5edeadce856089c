// SPDX-License-Identifier: MIT
#include "fill.h"

#include <fmt/format.h>

#include <limits>

#include "bk/error.h"

namespace bk::conformance {
namespace {

verify::Values uniform(size_t n, double lo, double hi, verify::SplitMix64& rng) {
  verify::Values v(n);
  for (double& x : v) x = rng.signed_uniform(lo, hi);
  return v;
}

verify::Values integers(size_t n, double lo, double hi, verify::SplitMix64& rng) {
  const auto first = static_cast<int64_t>(lo);
  const auto count = static_cast<uint64_t>(static_cast<int64_t>(hi) - first);
  verify::Values v(n);
  for (double& x : v) x = static_cast<double>(first + static_cast<int64_t>(rng.below(count)));
  return v;
}

// Row i1 of an [n_kv, rows] mask may see keys up to i1 + (n_kv - rows): the rows are the last
// `rows` query positions of an n_kv-long sequence.
verify::Values causal(const Shape& ne) {
  verify::Values v;
  v.reserve(static_cast<size_t>(ne[0] * ne[1] * ne[2] * ne[3]));
  for (int64_t i = 0; i < ne[2] * ne[3]; ++i)
    for (int64_t i1 = 0; i1 < ne[1]; ++i1)
      for (int64_t i0 = 0; i0 < ne[0]; ++i0)
        v.push_back(i0 <= i1 + (ne[0] - ne[1]) ? 0.0 : -std::numeric_limits<double>::infinity());
  return v;
}

}  // namespace

verify::Values fill_leaf(const Tensor& leaf, const LeafFill& fill, verify::SplitMix64& rng) {
  const auto n = static_cast<size_t>(leaf.nelements());
  // Quantized weights are filled as floats and quantized when written (probe/verify/quant_values.h).
  const bool is_float = dtype_traits(leaf.type).is_float || is_quantized(leaf.type);
  switch (fill.kind) {
    case LeafFill::Kind::uniform:
      if (is_float) return uniform(n, fill.lo, fill.hi, rng);
      break;
    case LeafFill::Kind::integers:
      if (!is_float) return integers(n, fill.lo, fill.hi, rng);
      break;
    case LeafFill::Kind::causal_mask:
      if (is_float) return causal(leaf.ne);
      break;
  }
  throw Error(
      ErrorCode::invalid_argument,
      fmt::format("conformance: leaf '{}' ({}) has no fill that suits its dtype; give it one in the case",
                  leaf.name, dtype_name(leaf.type)));
}

verify::LeafValues fill_leafs(const Graph& graph, const Case& c, verify::SplitMix64& rng) {
  verify::LeafValues values;
  for (const Tensor* leaf : graph.leafs()) {
    const auto it = c.fills.find(leaf->name);
    values[leaf] = fill_leaf(*leaf, it != c.fills.end() ? it->second : LeafFill{}, rng);
  }
  return values;
}

}  // namespace bk::conformance
