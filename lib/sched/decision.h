#pragma once
// The vocabulary of the decision record: why a tensor went to its backend (Cause), and why a
// higher-priority backend was passed over (PassReason). Names are the stable strings of
// `bkctl sched --json` (schema bk.sched/v1): a new value is a new schema version.

#include <cstdint>
#include <optional>
#include <string_view>

namespace bk {

enum class Cause : uint8_t {
  none,          // not decided (yet)
  pinned,        // the user pinned it
  preallocated,  // its memory already lives in a buffer of that backend
  weight,        // it reads a weight that lives there
  offload,       // its weight is in host memory and that backend asked for the op (offload_op)
  graph_input,   // a leaf without memory: set from the host, so it lives on the CPU
  expand_down,   // follows the nearest assigned node before it
  expand_up,     // takes the backend of the nearest assigned node after it
  upgrade,       // moved to a higher-priority backend that runs it and reads its inputs in place
  best_inputs,   // the backend that reads the most of its input bytes in place
  fallback,      // the first backend that runs it, when none reads any of its inputs
  view_source,   // a view (or a cpy into another tensor): it lives where its memory is
};
inline constexpr int kCauseCount = static_cast<int>(Cause::view_source) + 1;

enum class PassReason : uint8_t {
  unsupported_op,          // the device does not run this op
  unsupported_type,        // it runs the op, but not with these dtypes
  buffer_not_reachable,    // an input lives in memory the device cannot read in place
  pinned_elsewhere,        // the user pinned the tensor to another backend
  preallocated_elsewhere,  // its memory already lives on another backend
  weight_elsewhere,        // its weight lives on another backend (in device memory)
  offload_declined,        // its weight is in host memory and the device did not ask for the op
  offload_disabled,        // ... and offloading is switched off
  host_input,              // graph inputs are set from the host and live on the CPU
  follows_memory,          // a view or a cpy lives where its memory is
  kept_in_run,             // left in the run of neighbouring nodes to avoid a split
};
inline constexpr int kPassReasonCount = static_cast<int>(PassReason::kept_in_run) + 1;

std::string_view cause_name(Cause cause) noexcept;
std::string_view pass_reason_name(PassReason reason) noexcept;
std::optional<Cause> cause_from_name(std::string_view name) noexcept;
std::optional<PassReason> pass_reason_from_name(std::string_view name) noexcept;

// The decision for one tensor of a SchedGraph.
struct Decision {
  int16_t backend = -1;  // index into the scheduler's backends; -1 while undecided
  Cause cause = Cause::none;
  int32_t via = -1;  // the tensor id the cause refers to (weight, neighbour, source,
                     // largest input); for upgrade, the backend it moved from
};

}  // namespace bk
