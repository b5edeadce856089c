// SPDX-License-Identifier: MIT
#pragma once
// The CPU backend's op kernels: one function per op (kernels/op_*.cpp), looked up by
// cpu_op_kernel(), and the truthful answer to "can this node run here" (cpu_op_unsupported_reason).
//
// A kernel computes one node from its sources (host memory, any strides the builders in
// core/ops.h allow) into node's memory, using ctx for the ISA tier's loops, the pool and the work
// buffer. work_size() says how many bytes of work buffer it needs for `threads` threads with
// these loops; the plan sizes the graph's buffer with it. Kernels run only on nodes for which
// cpu_op_unsupported_reason() is empty. They throw Error(invalid_argument) for bad data the
// builders cannot check (a get_rows index out of range), never abort.

#include <cstddef>
#include <string>

#include "bk/tensor.h"
#include "devices/cpu/kernels/context.h"

namespace bk {

struct CpuOpKernel {
  void (*run)(KernelContext& ctx, const Tensor& node);
  size_t (*work_size)(const Tensor& node, const CpuKernels& k, int threads);
};

// The kernel for node.op; {nullptr, nullptr} for leafs and views, which compute nothing.
CpuOpKernel cpu_op_kernel(Op op) noexcept;

// Why the CPU kernels cannot compute node (naming the op, the dtypes and the rule), or empty
// when they can. Leafs and views are always supported.
std::string cpu_op_unsupported_reason(const Tensor& node);
// Whether that reason is empty, without building it (the same rules).
bool cpu_op_supported(const Tensor& node);

// The kernels, by op family.
void cpu_op_add(KernelContext& ctx, const Tensor& node);
void cpu_op_mul(KernelContext& ctx, const Tensor& node);
void cpu_op_scale(KernelContext& ctx, const Tensor& node);
void cpu_op_silu(KernelContext& ctx, const Tensor& node);
void cpu_op_gelu(KernelContext& ctx, const Tensor& node);
size_t cpu_elementwise_work_size(const Tensor& node, const CpuKernels& k, int threads);

void cpu_op_rms_norm(KernelContext& ctx, const Tensor& node);
void cpu_op_soft_max(KernelContext& ctx, const Tensor& node);
size_t cpu_row_work_size(const Tensor& node, const CpuKernels& k, int threads);  // 3 rows per thread

void cpu_op_rope(KernelContext& ctx, const Tensor& node);
size_t cpu_rope_work_size(const Tensor& node, const CpuKernels& k, int threads);

void cpu_op_get_rows(KernelContext& ctx, const Tensor& node);
void cpu_op_copy(KernelContext& ctx, const Tensor& node);  // cpy, cast and cont
size_t cpu_copy_work_size(const Tensor& node, const CpuKernels& k, int threads);

void cpu_op_mul_mat(KernelContext& ctx, const Tensor& node);
size_t cpu_mul_mat_work_size(const Tensor& node, const CpuKernels& k, int threads);

// Element-wise work and copies cut rows into segments of at most this many elements, so that one
// long row (ADD on 64M floats) still spreads over every thread.
inline constexpr int64_t kRowSegment = 8192;

// Per-thread scratch: the `index`-th block of `floats` floats of thread `thread`'s share, when
// every thread's share is `blocks` such blocks (64-byte aligned each).
inline size_t scratch_block_bytes(int64_t floats) noexcept {
  return align_up(static_cast<size_t>(floats) * sizeof(float));
}
inline float* thread_scratch(const KernelContext& ctx, int thread, int64_t floats, int blocks,
                             int index) noexcept {
  const size_t block = scratch_block_bytes(floats);
  return reinterpret_cast<float*>(
      ctx.work() +
      (static_cast<size_t>(thread) * static_cast<size_t>(blocks) + static_cast<size_t>(index)) * block);
}

}  // namespace bk
