// SPDX-License-Identifier: MIT
// Pass 2: tensors whose memory exists, and nodes that read weights.
#include <fmt/format.h>

#include "bk/error.h"
#include "sched/passes.h"

namespace bk {
namespace {

int memory_backend(const SchedState& s, int32_t id) {
  const BufferType& type = *s.fixed[static_cast<size_t>(id)];
  const int b = s.backend_of_type(type);
  if (b >= 0) return b;
  std::string names;
  for (int i = 0; i < s.count(); ++i) names += fmt::format("{}{}", i == 0 ? "" : ", ", s.device(i).name());
  throw Error(
      ErrorCode::invalid_argument,
      fmt::format("'{}' lives in buffer type '{}' of {}, which none of the scheduler's backends ({}) can "
                  "use; add {} to the backends",
                  s.graph->tensor(id).name, type.name(), type.device().name(), names, type.device().name()));
}

void decide_leaf(SchedState& s, int32_t id) {
  if (s.fixed[static_cast<size_t>(id)] != nullptr) {
    s.decide(id, memory_backend(s, id), Cause::preallocated, -1);
  } else {
    s.decide(id, s.cpu(), Cause::graph_input, -1);
  }
}

void decide_preallocated_node(SchedState& s, int32_t id) {
  const int b = memory_backend(s, id);
  if (!s.follows_memory(id) && !s.supports(id, b)) {
    const Tensor& node = s.graph->tensor(id);
    throw Error(
        ErrorCode::unsupported,
        fmt::format("node '{}' computes into memory that lives on {}, but {}; allocate its memory on a "
                    "device that runs it",
                    node.name, s.device(b).name(), s.device(b).unsupported_reason(node)));
  }
  s.decide(id, b, Cause::preallocated, s.graph->storage(id));
}

// The first source that is a weight with memory, or -1.
int32_t weight_source(const SchedState& s, int32_t id) {
  for (int32_t src : s.graph->sources(id)) {
    if (src < 0) continue;
    const int32_t st = s.graph->storage(src);
    if (s.graph->is_leaf(st) && s.graph->tensor(st).has_flag(kTensorWeight) &&
        s.fixed[static_cast<size_t>(st)] != nullptr) {
      return st;
    }
  }
  return -1;
}

void decide_weight_reader(SchedState& s, int32_t id) {
  const int32_t w = weight_source(s, id);
  if (w < 0) return;
  const int home = s.backend(w);
  if (s.options.offload && s.fixed[static_cast<size_t>(w)]->is_host()) {
    for (int b = 0; b < home; ++b) {
      if (s.supports(id, b) && s.device(b).offload_op(s.graph->tensor(id))) {
        s.decide(id, b, Cause::offload, w);
        return;
      }
    }
  }
  if (s.supports(id, home)) s.decide(id, home, Cause::weight, w);
}

}  // namespace

void pass_preallocated(SchedState& state) {
  for (int32_t id = 0; id < state.graph->leaf_count(); ++id) {
    if (!state.decided(id)) decide_leaf(state, id);
  }
  for (int32_t id = state.graph->leaf_count(); id < state.graph->size(); ++id) {
    if (state.decided(id)) continue;
    if (state.fixed[static_cast<size_t>(id)] != nullptr) {
      decide_preallocated_node(state, id);
    } else if (!state.follows_memory(id)) {
      decide_weight_reader(state, id);
    }
  }
}

}  // namespace bk
