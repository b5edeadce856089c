// SPDX-License-Identifier: MIT
// Pass 3: expansion from decided nodes to their undecided neighbours.
#include "sched/passes.h"

namespace bk {
namespace {

// One sweep in one direction. A decided node sets the backend to spread (the CPU's only when
// `from_cpu`); an undecided node takes it when the backend runs it, and stops the spread
// otherwise, so that a node the backend cannot run is not jumped over.
template <typename Ids>
void sweep(SchedState& s, const Ids& ids, bool from_cpu, Cause cause) {
  int cur = -1;
  int32_t via = -1;
  for (int32_t id : ids) {
    if (s.follows_memory(id)) continue;
    if (s.decided(id)) {
      const int b = s.backend(id);
      cur = (b == s.cpu() && !from_cpu) ? -1 : b;
      via = id;
    } else if (cur >= 0) {
      if (s.supports(id, cur)) {
        s.decide(id, cur, cause, via);
        via = id;
      } else {
        cur = -1;
      }
    }
  }
}

struct Forward {
  int32_t first, last;
  struct It {
    int32_t i;
    int32_t operator*() const { return i; }
    It& operator++() {
      ++i;
      return *this;
    }
    bool operator!=(const It& o) const { return i != o.i; }
  };
  It begin() const { return {first}; }
  It end() const { return {last}; }
};

struct Backward {
  int32_t first, last;
  struct It {
    int32_t i;
    int32_t operator*() const { return i - 1; }
    It& operator++() {
      --i;
      return *this;
    }
    bool operator!=(const It& o) const { return i != o.i; }
  };
  It begin() const { return {last}; }
  It end() const { return {first}; }
};

}  // namespace

void pass_expand(SchedState& state) {
  const Forward down{state.graph->leaf_count(), state.graph->size()};
  const Backward up{state.graph->leaf_count(), state.graph->size()};
  sweep(state, down, false, Cause::expand_down);
  sweep(state, up, false, Cause::expand_up);
  sweep(state, down, true, Cause::expand_down);
  sweep(state, up, true, Cause::expand_up);
}

}  // namespace bk
