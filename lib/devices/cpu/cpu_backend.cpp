#include "devices/cpu/cpu_backend.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/graph.h"
#include "devices/cpu/cpu_topology.h"

namespace bk {

CpuBackend::CpuBackend(Device& device) : device_(&device), threads_(cpu_default_threads()) {}

void CpuBackend::set_threads(int threads) {
  if (threads < 1) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{}: thread count must be at least 1, got {}", name(), threads));
  }
  threads_ = threads;
}

void CpuBackend::compute(Graph& graph) {
  for (Tensor* node : graph.nodes()) compute_node(*node);
}

void CpuBackend::compute_node(Tensor& node) {
  if (op_is_view(node.op)) return;
  throw Error(
      ErrorCode::unsupported,
      fmt::format("{} cannot compute op '{}' (node '{}', {} {}): no kernel for it in this build; run the "
                  "node on another device",
                  name(), op_name(node.op), node.name, dtype_name(node.type), node.shape_string()));
}

void cpu_set_threads(Backend& backend, int threads) {
  auto* cpu = dynamic_cast<CpuBackend*>(&backend);
  if (cpu == nullptr) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("set_threads: backend '{}' is not a CPU backend", backend.name()));
  }
  cpu->set_threads(threads);
}

}  // namespace bk
