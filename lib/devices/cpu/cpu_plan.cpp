// SPDX-License-Identifier: MIT
#include "devices/cpu/cpu_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "bk/error.h"

namespace bk {

CpuPlan cpu_make_plan(const Graph& graph, const CpuKernels& kernels, int threads) {
  CpuPlan plan;
  for (Tensor* node : graph.nodes()) {
    if (op_is_view(node->op) || node->op == Op::none) continue;
    if (!cpu_op_supported(*node)) {
      throw Error(ErrorCode::unsupported,
                  fmt::format("{} ({} {}); run the node on another device", cpu_op_unsupported_reason(*node),
                              dtype_name(node->type), node->shape_string()));
    }
    if (node->data == nullptr) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("CPU cannot compute {} node '{}': it has no memory; allocate the graph first",
                              op_name(node->op), node->name));
    }
    if (node->nelements() == 0) continue;
    const CpuOpKernel kernel = cpu_op_kernel(node->op);
    plan.work_size = std::max(plan.work_size, kernel.work_size(*node, kernels, threads));
    plan.steps.push_back({node, kernel});
  }
  return plan;
}

}  // namespace bk
