// SPDX-License-Identifier: MIT
// Pass 5: fill-in for everything still undecided.
#include <fmt/format.h>

#include "bk/error.h"
#include "sched/passes.h"

namespace bk {
namespace {

[[noreturn]] void nobody_runs(const SchedState& s, int32_t id) {
  const Tensor& node = s.graph->tensor(id);
  std::string reasons;
  for (int b = 0; b < s.count(); ++b) {
    reasons +=
        fmt::format("{}{}: {}", b == 0 ? "" : "; ", s.device(b).name(), s.device(b).unsupported_reason(node));
  }
  throw Error(ErrorCode::unsupported,
              fmt::format("no backend runs node '{}' (op {}, {} {}): {}", node.name, op_name(node.op),
                          dtype_name(node.type), node.shape_string(), reasons));
}

void decide_memory_follower(SchedState& s, int32_t id) {
  const int32_t st = s.graph->storage(id);
  const int b = s.backend(st);
  if (!s.supports(id, b)) nobody_runs(s, id);
  s.decide(id, b, Cause::view_source, st);
}

// Bytes of the node's inputs that backend b reads in place; `largest` is the biggest of them.
size_t readable_bytes(const SchedState& s, int32_t id, int b, int32_t& largest) {
  size_t total = 0, best = 0;
  largest = -1;
  for (int32_t src : s.graph->sources(id)) {
    if (src < 0 || !s.readable(b, src)) continue;
    const size_t n = s.graph->tensor(src).nbytes();
    total += n;
    if (largest < 0 || n > best) {
      best = n;
      largest = src;
    }
  }
  return total;
}

void decide_by_inputs(SchedState& s, int32_t id) {
  int chosen = -1, first = -1;
  int32_t via = -1;
  size_t most = 0;
  for (int b = 0; b < s.count(); ++b) {
    if (!s.supports(id, b)) continue;
    if (first < 0) first = b;
    int32_t largest = -1;
    const size_t bytes = readable_bytes(s, id, b, largest);
    if (largest >= 0 && (chosen < 0 || bytes > most)) {
      chosen = b;
      most = bytes;
      via = largest;
    }
  }
  if (chosen >= 0) {
    s.decide(id, chosen, Cause::best_inputs, via);
  } else if (first >= 0) {
    s.decide(id, first, Cause::fallback, -1);
  } else {
    nobody_runs(s, id);
  }
}

}  // namespace

void pass_fill(SchedState& state) {
  for (int32_t id = state.graph->leaf_count(); id < state.graph->size(); ++id) {
    if (state.decided(id)) continue;
    if (state.follows_memory(id)) {
      decide_memory_follower(state, id);
    } else {
      decide_by_inputs(state, id);
    }
  }
}

}  // namespace bk
