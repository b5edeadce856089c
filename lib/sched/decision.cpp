// SPDX-License-Identifier: MIT
#include "sched/decision.h"

#include <array>

namespace bk {
namespace {

constexpr std::array<std::string_view, kCauseCount> kCauseNames{
    "none",        "pinned",    "preallocated", "weight",      "offload",  "graph_input",
    "expand_down", "expand_up", "upgrade",      "best_inputs", "fallback", "view_source",
};

constexpr std::array<std::string_view, kPassReasonCount> kReasonNames{
    "unsupported_op",
    "unsupported_type",
    "buffer_not_reachable",
    "pinned_elsewhere",
    "preallocated_elsewhere",
    "weight_elsewhere",
    "offload_declined",
    "offload_disabled",
    "host_input",
    "follows_memory",
    "kept_in_run",
};

template <typename E, size_t N>
std::optional<E> from_name(const std::array<std::string_view, N>& names, std::string_view name) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<E>(i);
  }
  return std::nullopt;
}

}  // namespace

std::string_view cause_name(Cause cause) noexcept { return kCauseNames[static_cast<size_t>(cause)]; }

std::string_view pass_reason_name(PassReason reason) noexcept {
  return kReasonNames[static_cast<size_t>(reason)];
}

std::optional<Cause> cause_from_name(std::string_view name) noexcept {
  return from_name<Cause>(kCauseNames, name);
}

std::optional<PassReason> pass_reason_from_name(std::string_view name) noexcept {
  return from_name<PassReason>(kReasonNames, name);
}

}  // namespace bk
