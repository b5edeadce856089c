// SPDX-License-Identifier: MIT
// Pass 1: user pins.
#include <fmt/format.h>

#include "bk/error.h"
#include "sched/passes.h"

namespace bk {
namespace {

void check_memory(const SchedState& s, int32_t id, int b) {
  const BufferType* type = s.fixed[static_cast<size_t>(id)];
  if (type == nullptr || s.backend_of_type(*type) == b) return;
  throw Error(ErrorCode::invalid_argument,
              fmt::format("cannot pin '{}' to {}: its memory already lives in buffer type '{}' of {}; pin it "
                          "there, or allocate it on {}",
                          s.graph->tensor(id).name, s.device(b).name(), type->name(), type->device().name(),
                          s.device(b).name()));
}

void check_not_follower(const SchedState& s, int32_t id) {
  if (!s.follows_memory(id)) return;
  const Tensor& storage = s.graph->tensor(s.graph->storage(id));
  throw Error(
      ErrorCode::invalid_argument,
      fmt::format("cannot pin '{}': it computes nothing of its own memory (op {}) and lives where '{}' "
                  "lives; pin '{}' instead",
                  s.graph->tensor(id).name, op_name(s.graph->tensor(id).op), storage.name, storage.name));
}

void check_support(const SchedState& s, int32_t id, int b) {
  if (s.supports(id, b)) return;
  throw Error(ErrorCode::unsupported,
              fmt::format("cannot pin '{}' to {}: {}", s.graph->tensor(id).name, s.device(b).name(),
                          s.device(b).unsupported_reason(s.graph->tensor(id))));
}

}  // namespace

void pass_pins(SchedState& state) {
  for (int32_t id = 0; id < state.graph->size(); ++id) {
    const int b = state.pin[static_cast<size_t>(id)];
    if (b < 0) continue;
    check_memory(state, id, b);
    if (!state.graph->is_leaf(id)) {
      check_not_follower(state, id);
      check_support(state, id, b);
    }
    state.decide(id, b, Cause::pinned, -1);
  }
}

void run_passes(SchedState& state) {
  pass_pins(state);
  pass_preallocated(state);
  pass_expand(state);
  pass_upgrade(state);
  pass_fill(state);
}

}  // namespace bk
