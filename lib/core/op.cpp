// SPDX-License-Identifier: MIT
#include "bk/op.h"

#include <array>

#include "bk/strings.h"

namespace bk {
namespace {
constexpr std::array<std::string_view, kOpCount> kNames{
    "none", "add",      "mul", "scale", "silu",    "gelu", "mul_mat", "rms_norm",  "soft_max",
    "rope", "get_rows", "cpy", "cont",  "reshape", "view", "permute", "transpose",
};
}  // namespace

std::string_view op_name(Op op) noexcept { return kNames[static_cast<size_t>(op)]; }

std::optional<Op> op_from_name(std::string_view name) noexcept {
  for (int i = 0; i < kOpCount; ++i) {
    if (iequals(kNames[static_cast<size_t>(i)], name)) return static_cast<Op>(i);
  }
  return std::nullopt;
}

}  // namespace bk
