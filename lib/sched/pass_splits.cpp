// SPDX-License-Identifier: MIT
// Pass 6: splits and their inputs.
#include "bk/tensor.h"
#include "sched/splits.h"

namespace bk {
namespace {

class SplitBuilder {
 public:
  SplitBuilder(const SchedState& s, SplitPlan& plan) : s_(s), plan_(plan) {
    plan_.splits.clear();
    plan_.inputs.clear();
    plan_.deps.clear();
    plan_.rewires.clear();
    plan_.copy_index.assign(static_cast<size_t>(s.count()) * static_cast<size_t>(s.graph->size()), -1);
  }

  void run() {
    const int32_t n = s_.graph->node_count();
    for (int32_t i = 0; i < n; ++i) {
      const int32_t id = s_.graph->node_id(i);
      if (s_.graph->is_view(id)) continue;
      const int b = s_.backend(id);
      if (plan_.splits.empty() || plan_.splits.back().backend != b) open(i, b);
      add_sources(id, b);
    }
    if (!plan_.splits.empty()) plan_.splits.back().end = n;
  }

 private:
  void open(int32_t i, int b) {
    if (!plan_.splits.empty()) plan_.splits.back().end = i;
    Split split;
    split.backend = static_cast<int16_t>(b);
    split.begin = plan_.splits.empty() ? 0 : i;  // leading views join the first split
    split.input_begin = split.input_end = static_cast<int32_t>(plan_.inputs.size());
    split.dep_begin = split.dep_end = static_cast<int32_t>(plan_.deps.size());
    plan_.splits.push_back(split);
  }

  void add_sources(int32_t id, int b) {
    const auto& sources = s_.graph->sources(id);
    for (size_t slot = 0; slot < sources.size(); ++slot) {
      const int32_t src = sources[slot];
      // A cpy's destination is its own memory, not an input.
      if (src < 0 || s_.graph->storage(src) == s_.graph->storage(id)) continue;
      if (s_.readable(b, src)) {
        add_dep(src, b);
      } else {
        plan_.rewires.push_back({id, static_cast<int32_t>(slot), copy_for(src, b)});
      }
    }
  }

  void add_dep(int32_t src, int b) {
    const int32_t st = s_.graph->storage(src);
    const int c = s_.backend(st);
    if (c == b || s_.graph->is_leaf(st) || s_.fixed[static_cast<size_t>(st)] != nullptr) return;
    Split& split = plan_.splits.back();
    for (int32_t k = split.dep_begin; k < split.dep_end; ++k) {
      if (plan_.deps[static_cast<size_t>(k)] == c) return;
    }
    plan_.deps.push_back(static_cast<int16_t>(c));
    split.dep_end = static_cast<int32_t>(plan_.deps.size());
  }

  int32_t copy_for(int32_t src, int b) {
    int32_t& input = plan_.copy_index[static_cast<size_t>(b) * static_cast<size_t>(s_.graph->size()) +
                                      static_cast<size_t>(src)];
    if (input >= 0) return input;
    input = static_cast<int32_t>(plan_.inputs.size());
    plan_.inputs.push_back(
        {src, s_.backend(s_.graph->storage(src)), static_cast<int16_t>(b), s_.graph->tensor(src).nbytes()});
    plan_.splits.back().input_end = static_cast<int32_t>(plan_.inputs.size());
    return input;
  }

  const SchedState& s_;
  SplitPlan& plan_;  // copy_index: per backend * size + id, the input index or -1
};

}  // namespace

size_t SplitPlan::bytes_copied() const noexcept {
  size_t total = 0;
  for (const SplitInput& input : inputs) total += input.bytes;
  return total;
}

void pass_splits(const SchedState& state, SplitPlan& plan) { SplitBuilder(state, plan).run(); }

}  // namespace bk
