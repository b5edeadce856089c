// SPDX-License-Identifier: MIT
#include "sched/sched_explain.h"

#include <fmt/format.h>

#include <array>

namespace bk {
namespace {

const std::string& name_of(const SchedState& s, int32_t id) { return s.graph->tensor(id).name; }
std::string dev(const SchedState& s, int b) { return s.device(b).name(); }

// Where a tensor's memory is, in words: "buffer type 'CPU' of CPU" or "gpu0's compute memory".
std::string memory_of(const SchedState& s, int32_t id) {
  const int32_t st = s.graph->storage(id);
  if (const BufferType* t = s.fixed[static_cast<size_t>(st)]) {
    return fmt::format("buffer type '{}' of {}", t->name(), t->device().name());
  }
  return fmt::format("{}'s compute memory", dev(s, s.backend(st)));
}

std::string leaf_sentence(const SchedState& s, int32_t id, const Decision& d) {
  if (d.cause == Cause::pinned) return fmt::format("pinned to {} by the user", dev(s, d.backend));
  if (d.cause == Cause::preallocated) return fmt::format("its memory is in {}", memory_of(s, id));
  return fmt::format("a graph input without memory: set from the host, so it lives on {}", dev(s, d.backend));
}

std::string follower_sentence(const SchedState& s, int32_t id, const Decision& d) {
  const std::string& source = name_of(s, s.graph->storage(id));
  if (op_is_view(s.graph->tensor(id).op)) {
    return fmt::format("a view of '{}': it computes nothing and lives where '{}' lives ({})", source, source,
                       dev(s, d.backend));
  }
  return fmt::format("writes into the memory of '{}', so it runs where that memory is ({})", source,
                     dev(s, d.backend));
}

// Nodes whose cause is an input-side decision: the first input b cannot read in place.
PassedOver reach_reason(const SchedState& s, int32_t id, int b) {
  for (int32_t src : s.graph->sources(id)) {
    if (src < 0 || s.readable(b, src)) continue;
    return {b, PassReason::buffer_not_reachable,
            fmt::format("input '{}' lives in {}, which {} cannot read in place", name_of(s, src),
                        memory_of(s, src), dev(s, b))};
  }
  return {
      b, PassReason::kept_in_run,
      fmt::format("{} runs it and reads its inputs, but it stays with its neighbours on {} to avoid a split",
                  dev(s, b), dev(s, s.backend(id)))};
}

// The node with every float dtype made f32: does b run the op at all?
bool runs_op_in_f32(const SchedState& s, int32_t id, int b) {
  Tensor probe = s.graph->tensor(id);
  std::array<Tensor, kMaxSources> sources;
  for (size_t j = 0; j < kMaxSources; ++j) {
    if (probe.src[j] == nullptr) continue;
    sources[j] = *probe.src[j];
    if (dtype_traits(sources[j].type).is_float) sources[j].type = DType::F32;
    probe.src[j] = &sources[j];
  }
  if (dtype_traits(probe.type).is_float) probe.type = DType::F32;
  return s.device(b).supports_op(probe);
}

PassedOver weight_reason(const SchedState& s, int b, const Decision& d) {
  const int32_t w = d.via;
  const BufferType& type = *s.fixed[static_cast<size_t>(w)];
  if (!type.is_host()) {
    return {b, PassReason::weight_elsewhere,
            fmt::format("its weight '{}' lives in {}", name_of(s, w), memory_of(s, w))};
  }
  if (!s.options.offload) {
    return {b, PassReason::offload_disabled,
            fmt::format("its weight '{}' is in host memory and offloading is off", name_of(s, w))};
  }
  return {b, PassReason::offload_declined,
          fmt::format("its weight '{}' is in host memory and {} does not ask for this op (offload_op)",
                      name_of(s, w), dev(s, b))};
}

}  // namespace

std::string node_sentence(const SchedState& s, int32_t id) {
  const Decision& d = s.decision[static_cast<size_t>(id)];
  if (s.graph->is_leaf(id)) return leaf_sentence(s, id, d);
  const std::string b = dev(s, d.backend);
  switch (d.cause) {
    case Cause::none:
      return "not decided";
    case Cause::pinned:
      return fmt::format("pinned to {} by the user", b);
    case Cause::preallocated:
      return fmt::format("its memory is already in {}", memory_of(s, id));
    case Cause::weight:
      return fmt::format("reads weight '{}', which lives on {}", name_of(s, d.via), b);
    case Cause::offload:
      return fmt::format("reads weight '{}' from host memory, and {} asked to run it there (offload)",
                         name_of(s, d.via), b);
    case Cause::graph_input:
      return fmt::format("a graph input: it lives on {}", b);
    case Cause::expand_down:
      return fmt::format("continues the run of '{}' on {} before it", name_of(s, d.via), b);
    case Cause::expand_up:
      return fmt::format("joins the run of '{}' on {} after it", name_of(s, d.via), b);
    case Cause::upgrade:
      return fmt::format("moved up from {} to {}, which runs it and reads all its inputs in place",
                         dev(s, d.via), b);
    case Cause::best_inputs:
      return fmt::format("{} reads the most of its input bytes in place (the largest it reads: '{}')", b,
                         name_of(s, d.via));
    case Cause::fallback:
      return fmt::format("no backend that runs it reads its inputs in place; {} is the first that runs it",
                         b);
    case Cause::view_source:
      return follower_sentence(s, id, d);
  }
  return {};
}

PassedOver passed_over(const SchedState& s, int32_t id, int b) {
  const Tensor& node = s.graph->tensor(id);
  if (!s.supports(id, b)) {
    const PassReason reason =
        runs_op_in_f32(s, id, b) ? PassReason::unsupported_type : PassReason::unsupported_op;
    return {b, reason, s.device(b).unsupported_reason(node)};
  }
  const Decision& d = s.decision[static_cast<size_t>(id)];
  switch (d.cause) {
    case Cause::pinned:
      return {b, PassReason::pinned_elsewhere, fmt::format("the user pinned it to {}", dev(s, d.backend))};
    case Cause::preallocated:
      return {b, PassReason::preallocated_elsewhere,
              fmt::format("its memory is already in {}", memory_of(s, id))};
    case Cause::view_source:
      return {b, PassReason::follows_memory,
              fmt::format("it lives with the memory of '{}'", name_of(s, s.graph->storage(id)))};
    case Cause::weight:
    case Cause::offload:
      return weight_reason(s, b, d);
    default:
      return reach_reason(s, id, b);
  }
}

}  // namespace bk
