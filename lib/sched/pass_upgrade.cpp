// SPDX-License-Identifier: MIT
// Pass 4: upgrade to a higher-priority backend that needs no new copy.
#include "sched/passes.h"

namespace bk {
namespace {

bool reads_all_inputs(const SchedState& s, int32_t id, int b) {
  for (int32_t src : s.graph->sources(id)) {
    if (src >= 0 && !s.readable(b, src)) return false;
  }
  return true;
}

bool may_move(const SchedState& s, int32_t id) {
  const Cause cause = s.decision[static_cast<size_t>(id)].cause;
  return s.decided(id) && cause != Cause::pinned && cause != Cause::preallocated && !s.follows_memory(id);
}

}  // namespace

void pass_upgrade(SchedState& state) {
  for (int32_t id = state.graph->leaf_count(); id < state.graph->size(); ++id) {
    if (!may_move(state, id)) continue;
    const int cur = state.backend(id);
    for (int b = 0; b < cur; ++b) {
      if (state.supports(id, b) && reads_all_inputs(state, id, b)) {
        state.decide(id, b, Cause::upgrade, cur);
        break;
      }
    }
  }
}

}  // namespace bk
