// SPDX-License-Identifier: MIT
#pragma once
// Helpers shared by the cases_*.cpp files that write the case list.

#include <fmt/format.h>

#include <array>
#include <string>
#include <utility>

#include "bk/ops.h"
#include "cases.h"

namespace bk::conformance {

inline constexpr std::array<DType, 3> kFloatTypes{DType::F32, DType::F16, DType::BF16};

inline std::string dt(DType t) { return std::string(dtype_name(t)); }

inline Case make_case(std::string name, std::string op, DType dtype, std::function<Graph()> build,
                      std::map<std::string, LeafFill> fills = {}) {
  return Case{std::move(name), std::move(op), dtype, std::move(build), std::move(fills)};
}

// A random sign times a magnitude in [lo, hi).
inline LeafFill magnitudes(double lo, double hi) { return {LeafFill::Kind::uniform, lo, hi}; }
inline LeafFill integers(int64_t lo, int64_t hi) {
  return {LeafFill::Kind::integers, static_cast<double>(lo), static_cast<double>(hi)};
}
inline LeafFill causal_mask() { return {LeafFill::Kind::causal_mask, 0, 0}; }

}  // namespace bk::conformance
