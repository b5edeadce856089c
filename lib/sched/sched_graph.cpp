// SPDX-License-Identifier: MIT
#include "sched/sched_graph.h"

#include <fmt/format.h>

#include "bk/error.h"

namespace bk {
namespace {

[[noreturn]] void foreign_source(const Tensor& node, const Tensor& src) {
  throw Error(ErrorCode::invalid_argument,
              fmt::format("node '{}' reads '{}', which is not part of the graph being scheduled; build both "
                          "with the same GraphBuilder",
                          node.name, src.name));
}

}  // namespace

void SchedGraph::build(const Graph& graph) {
  graph_ = &graph;
  const auto leafs = graph.leafs();
  const auto nodes = graph.nodes();
  leaf_count_ = static_cast<int32_t>(leafs.size());
  tensors_.assign(leafs.begin(), leafs.end());
  tensors_.insert(tensors_.end(), nodes.begin(), nodes.end());
  const size_t n = tensors_.size();
  index_.reset(n);
  for (size_t i = 0; i < n; ++i) index_.insert(tensors_[i], static_cast<int32_t>(i));
  src_.resize(n);
  storage_.resize(n);
  view_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t = *tensors_[i];
    for (size_t j = 0; j < kMaxSources; ++j) {
      const Tensor* s = t.src[j];
      src_[i][j] = s == nullptr ? -1 : index_.find(s);
      if (s != nullptr && src_[i][j] < 0) foreign_source(t, *s);
    }
    storage_[i] = static_cast<int32_t>(i);
    view_[i] = op_is_view(t.op) ? 1 : 0;
    if (t.view_src != nullptr) {
      storage_[i] = index_.find(t.view_src);
      if (storage_[i] < 0) foreign_source(t, *t.view_src);
    }
  }
}

}  // namespace bk
