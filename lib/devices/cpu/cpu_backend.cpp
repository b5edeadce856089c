// SPDX-License-Identifier: MIT
#include "devices/cpu/cpu_backend.h"

#include <fmt/format.h>

#include <new>
#include <optional>

#include "bk/error.h"
#include "bk/graph.h"
#include "devices/cpu/cpu_plan.h"
#include "devices/cpu/cpu_topology.h"
#include "devices/cpu/kernels/dispatch.h"
#include "devices/cpu/threadpool.h"

namespace bk {
namespace {

CpuBackend& as_cpu(Backend& backend, const char* what) {
  auto* cpu = dynamic_cast<CpuBackend*>(&backend);
  if (cpu == nullptr) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{}: backend '{}' is not a CPU backend", what, backend.name()));
  }
  return *cpu;
}

}  // namespace

CpuBackend::CpuBackend(Device& device)
    : device_(&device), threads_(cpu_default_threads()), kernels_(&cpu_kernels(cpu_default_isa())) {}

CpuBackend::~CpuBackend() = default;

void CpuBackend::AlignedFree::operator()(std::byte* p) const noexcept {
  ::operator delete[](p, std::align_val_t{kWorkAlign});
}

void CpuBackend::set_threads(int threads) {
  if (threads < 1) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{}: thread count must be at least 1, got {}", name(), threads));
  }
  if (threads != threads_) pool_.reset();
  threads_ = threads;
}

CpuIsa CpuBackend::isa() const noexcept { return kernels_->isa; }

void CpuBackend::set_isa(CpuIsa isa) { kernels_ = &cpu_kernels(isa); }

std::byte* CpuBackend::work_buffer(size_t size) {
  if (size <= work_size_) return work_.get();
  work_.reset();
  work_size_ = 0;
  try {
    work_.reset(static_cast<std::byte*>(::operator new[](size, std::align_val_t{kWorkAlign})));
  } catch (const std::bad_alloc&) {
    throw Error(
        ErrorCode::out_of_memory,
        fmt::format("{}: cannot allocate a {}-byte work buffer for the graph's largest node; free memory "
                    "or split the graph",
                    name(), size));
  }
  work_size_ = size;
  return work_.get();
}

void CpuBackend::abort_error(const Tensor& node, size_t index, size_t count) const {
  throw Error(
      ErrorCode::timeout,
      fmt::format("{}: compute aborted by the abort callback at node '{}' ({} of {} computing nodes); it "
                  "and the nodes after it are incomplete",
                  name(), node.name, index + 1, count));
}

void CpuBackend::compute(Graph& graph) {
  const CpuPlan plan = cpu_make_plan(graph, *kernels_, threads_);
  if (plan.steps.empty()) return;
  if (!pool_) pool_ = std::make_unique<ThreadPool>(threads_);
  std::byte* work = work_buffer(plan.work_size);
  const std::function<bool()>* abort = abort_ ? &abort_ : nullptr;
  std::optional<ThreadPool::Polling> polling;  // node after node: the next job follows at once
  if (plan.steps.size() > 1) polling.emplace(*pool_);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const CpuPlanStep& step = plan.steps[i];
    if (abort != nullptr && (*abort)()) abort_error(*step.node, i, plan.steps.size());
    KernelContext ctx(*kernels_, *pool_, work, plan.work_size, abort);
    step.kernel.run(ctx, *step.node);
    if (ctx.aborted()) abort_error(*step.node, i, plan.steps.size());
  }
}

void cpu_set_threads(Backend& backend, int threads) { as_cpu(backend, "set_threads").set_threads(threads); }

void cpu_set_abort_callback(Backend& backend, bool (*callback)(void* user), void* user) {
  CpuBackend& cpu = as_cpu(backend, "set_abort_callback");
  if (callback == nullptr) {
    cpu.set_abort_callback({});
  } else {
    cpu.set_abort_callback([callback, user] { return callback(user); });
  }
}

}  // namespace bk
