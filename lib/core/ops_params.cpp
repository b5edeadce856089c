// SPDX-License-Identifier: MIT
// The op parameter accessors of ops.h: one place that knows which param index means what.
#include <fmt/format.h>

#include <bit>

#include "bk/error.h"
#include "bk/ops.h"

namespace bk {
namespace {

size_t param_index(const Tensor& node, int index) {
  if (index < 0 || index >= kMaxOpParams) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("op parameter {} of '{}' is outside [0, {})", index, node.name, kMaxOpParams));
  }
  return static_cast<size_t>(index);
}

void require_op(const Tensor& node, Op op, const char* accessor) {
  if (node.op != op) {
    throw Error(ErrorCode::invalid_argument, fmt::format("{}: node '{}' is a {} node, not {}", accessor,
                                                         node.name, op_name(node.op), op_name(op)));
  }
}

}  // namespace

float op_param_f32(const Tensor& node, int index) { return std::bit_cast<float>(op_param_i32(node, index)); }

int32_t op_param_i32(const Tensor& node, int index) { return node.params[param_index(node, index)]; }

void set_op_param_f32(Tensor& node, int index, float value) {
  set_op_param_i32(node, index, std::bit_cast<int32_t>(value));
}

void set_op_param_i32(Tensor& node, int index, int32_t value) {
  node.params[param_index(node, index)] = value;
}

float scale_factor(const Tensor& node) {
  require_op(node, Op::scale, "scale_factor");
  return op_param_f32(node, 0);
}

float rms_norm_eps(const Tensor& node) {
  require_op(node, Op::rms_norm, "rms_norm_eps");
  return op_param_f32(node, 0);
}

float soft_max_scale(const Tensor& node) {
  require_op(node, Op::soft_max, "soft_max_scale");
  return op_param_f32(node, 0);
}

RopeParams rope_params(const Tensor& node) {
  require_op(node, Op::rope, "rope_params");
  return {op_param_i32(node, 0), static_cast<RopeMode>(op_param_i32(node, 1)), op_param_f32(node, 2)};
}

std::array<int, kMaxDims> permute_axes(const Tensor& node) {
  if (node.op != Op::permute && node.op != Op::transpose) require_op(node, Op::permute, "permute_axes");
  return {op_param_i32(node, 0), op_param_i32(node, 1), op_param_i32(node, 2), op_param_i32(node, 3)};
}

}  // namespace bk
