// SPDX-License-Identifier: MIT
#pragma once
// A graph evaluation planned for the CPU kernels: the kernel of every node that computes
// something, in graph order, and the work buffer the largest of them needs.
//
// Made by CpuBackend::compute() for each graph (cheap: one pass over the nodes). Throws
// Error(unsupported) naming the node, its op, dtypes and the reason for the first node the CPU
// kernels cannot compute, before anything runs.

#include <cstddef>
#include <vector>

#include "bk/graph.h"
#include "devices/cpu/kernels/op_kernels.h"

namespace bk {

struct CpuPlanStep {
  Tensor* node;
  CpuOpKernel kernel;
};

struct CpuPlan {
  std::vector<CpuPlanStep> steps;  // views, leafs and empty nodes are left out
  size_t work_size = 0;            // bytes, the maximum over the steps
};

CpuPlan cpu_make_plan(const Graph& graph, const CpuKernels& kernels, int threads);

}  // namespace bk
