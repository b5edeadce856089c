// SPDX-License-Identifier: MIT
// cuda_unsupported_reason (cuda_ops.h): what the CUDA kernels and cuBLAS calls can run. Kept
// apart from the launches so that it depends on core only and is unit-tested without a GPU.

#include <fmt/format.h>

#include <climits>

#include "bk/tensor.h"
#include "devices/cuda/cuda_ops.h"

namespace bk {
namespace {

bool is_float(const Tensor* t) { return t != nullptr && dtype_traits(t->type).is_float; }

std::string mul_mat_reason(const Tensor& node) {
  const Tensor& w = *node.src[0];
  const Tensor& x = *node.src[1];
  if (!is_float(&w) || x.type != DType::F32) {
    return fmt::format("mul_mat needs f32, f16 or bf16 weights and f32 activations, not {} and {}",
                       dtype_name(w.type), dtype_name(x.type));
  }
  for (int64_t n : {w.ne[0], w.ne[1], x.ne[1]}) {
    if (n > INT_MAX) return fmt::format("mul_mat sizes M, N, K must fit cuBLAS's int, {} does not", n);
  }
  if (x.ne[2] * x.ne[3] > INT_MAX) return "mul_mat has more batches than cuBLAS's int can count";
  return {};
}

}  // namespace

std::string cuda_unsupported_reason(const Tensor& node) {
  const Tensor* a = node.src[0];
  if (a != nullptr && is_quantized(a->type)) {
    return fmt::format("{} weights ({} '{}'): no CUDA kernel reads quantized weights yet (the CPU does)",
                       dtype_name(a->type), op_name(node.op), a->name);
  }
  switch (node.op) {
    case Op::none:
    case Op::reshape:
    case Op::view:
    case Op::permute:
    case Op::transpose:
      return {};
    case Op::add:
    case Op::mul:
      return is_float(a) && is_float(node.src[1]) && is_float(&node) ? "" : "add and mul need float tensors";
    case Op::scale:
    case Op::silu:
    case Op::gelu:
    case Op::rms_norm:
    case Op::cont:
    case Op::cpy:
      return is_float(a) && is_float(&node) ? "" : fmt::format("{} needs float tensors", op_name(node.op));
    case Op::soft_max:
      return is_float(a) && (node.src[1] == nullptr || node.src[1]->type == DType::F32)
                 ? ""
                 : "soft_max needs a float "
                   "input and an f32 mask";
    case Op::rope:
      return is_float(a) && node.src[1] != nullptr && node.src[1]->type == DType::I32
                 ? ""
                 : "rope needs float data and "
                   "i32 positions";
    case Op::get_rows:
      return is_float(a) && node.src[1] != nullptr && node.src[1]->type == DType::I32 &&
                     node.type == DType::F32
                 ? ""
                 : "get_rows needs a float table, i32 indices and an f32 result";
    case Op::mul_mat:
      return a != nullptr && node.src[1] != nullptr ? mul_mat_reason(node) : "mul_mat needs w and x";
  }
  return fmt::format("op {} has no CUDA kernel", op_name(node.op));
}

}  // namespace bk
