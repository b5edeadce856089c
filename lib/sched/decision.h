// SPDX-License-Identifier: MIT
#pragma once
// Decision: the compact record the scheduler's passes write for every tensor. Its vocabulary
// (Cause, PassReason) is public, in bk/sched_report.h.

#include <cstdint>

#include "bk/sched_report.h"

namespace bk {

// The decision for one tensor of a SchedGraph.
struct Decision {
  int16_t backend = -1;  // index into the scheduler's backends; -1 while undecided
  Cause cause = Cause::none;
  int32_t via = -1;  // the tensor id the cause refers to (weight, neighbour, source,
                     // largest input); for upgrade, the backend it moved from
};

}  // namespace bk
