// SPDX-License-Identifier: MIT
#pragma once
// Splits: the graph cut into contiguous runs of nodes on one backend, with the inputs each run
// must have copied in. Filled by pass_splits from a decided SchedState.
//
// An input that lives where the split's device cannot read it in place is copied once into
// that backend's memory, by the first split there that needs it; later splits on the same
// backend read the same copy. A split that reads in place a result another backend computes in
// this graph lists that backend in its deps, so compute waits for it. Views compute nothing:
// they never start or end a split. No limits on the number of splits, inputs or backends.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sched/sched_state.h"

namespace bk {

struct SplitInput {
  int32_t tensor = -1;  // id of the tensor copied
  int16_t from = -1;    // backend it lives on
  int16_t to = -1;      // backend of the split that copies it
  size_t bytes = 0;
};

struct Split {
  int16_t backend = -1;
  int32_t begin = 0, end = 0;              // node indices [begin, end) of graph.nodes()
  int32_t input_begin = 0, input_end = 0;  // into SplitPlan::inputs
  int32_t dep_begin = 0, dep_end = 0;      // into SplitPlan::deps
};

// Node `node` reads its source `slot` from the copy of `input` instead of the original.
struct SourceRewire {
  int32_t node = -1;
  int32_t slot = 0;
  int32_t input = -1;
};

struct SplitPlan {
  std::vector<Split> splits;
  std::vector<SplitInput> inputs;
  std::vector<int16_t> deps;
  std::vector<SourceRewire> rewires;
  std::vector<int32_t> copy_index;  // scratch of pass_splits, kept to reuse its memory

  size_t bytes_copied() const noexcept;
};

void pass_splits(const SchedState& state, SplitPlan& plan);

}  // namespace bk
