// SPDX-License-Identifier: MIT
// Which kernel computes which op.
#include "devices/cpu/kernels/op_kernels.h"

namespace bk {

CpuOpKernel cpu_op_kernel(Op op) noexcept {
  switch (op) {
    case Op::add:
      return {cpu_op_add, cpu_elementwise_work_size};
    case Op::mul:
      return {cpu_op_mul, cpu_elementwise_work_size};
    case Op::scale:
      return {cpu_op_scale, cpu_elementwise_work_size};
    case Op::silu:
      return {cpu_op_silu, cpu_elementwise_work_size};
    case Op::gelu:
      return {cpu_op_gelu, cpu_elementwise_work_size};
    case Op::mul_mat:
      return {cpu_op_mul_mat, cpu_mul_mat_work_size};
    case Op::rms_norm:
      return {cpu_op_rms_norm, cpu_row_work_size};
    case Op::soft_max:
      return {cpu_op_soft_max, cpu_row_work_size};
    case Op::rope:
      return {cpu_op_rope, cpu_rope_work_size};
    case Op::get_rows:
      return {cpu_op_get_rows, cpu_row_work_size};
    case Op::cpy:
    case Op::cont:
      return {cpu_op_copy, cpu_copy_work_size};
    case Op::none:
    case Op::reshape:
    case Op::view:
    case Op::permute:
    case Op::transpose:
      return {nullptr, nullptr};
  }
  return {nullptr, nullptr};
}

}  // namespace bk
