// SPDX-License-Identifier: MIT
#pragma once
// The scheduler's passes, in the order it runs them. Each fills SchedState::decision for the
// tensors it can decide and leaves the rest undecided; none undoes an earlier pass's decision
// except upgrade, which moves a node to a better backend. After pass_fill every tensor is
// decided. Throws Error as documented per pass; nothing is changed in the graph.

#include "sched/sched_state.h"

namespace bk {

// 1. User pins. Throws Error(invalid_argument) when a pinned tensor's memory already lives on
//    another backend, Error(unsupported) when the pinned backend cannot run the node.
void pass_pins(SchedState& state);

// 2. Tensors with memory and what reads weights: leafs go where their memory is (graph inputs
//    without memory to the CPU); nodes whose memory exists go there; a node that reads a weight
//    goes where the weight is, or, with offload on and the weight in host memory, to the first
//    higher-priority backend that asks for the op. Throws Error(invalid_argument) when no
//    backend can use a tensor's memory, Error(unsupported) when a node must run where its
//    memory is and that backend cannot run it.
void pass_preallocated(SchedState& state);

// 3. Expansion: undecided nodes take the backend of their nearest decided neighbour, first
//    from GPU-side nodes (down, then up), then from any (down, then up), as long as the
//    backend runs them. Views and cpy nodes are left to pass_fill.
void pass_expand(SchedState& state);

// 4. Upgrade: a decided node moves to the first higher-priority backend that runs it and reads
//    every one of its inputs in place (no copy added). Pinned and preallocated nodes stay.
void pass_upgrade(SchedState& state);

// 5. Fill-in: views and cpy nodes go where their memory lives; any other undecided node to the
//    backend that reads the most of its input bytes in place, else to the first that runs it.
//    Throws Error(unsupported) naming the node and every backend's reason when none runs it.
void pass_fill(SchedState& state);

// All five, in order.
void run_passes(SchedState& state);

}  // namespace bk
