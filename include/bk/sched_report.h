// SPDX-License-Identifier: MIT
#pragma once
// The decision record of a schedule, in words: for every node its backend, cause and a
// sentence, and for each higher-priority backend passed over the reason; for every leaf where
// it lives; for every split its backend, nodes, inputs and compute buffer; and the totals.
// `bkctl sched` prints it as text or JSON (schema bk.sched/v2, rendered by sched_report_json
// below). Built on demand from the scheduler's compact state, so the scheduling hot path never
// formats a string.

#include <cstddef>
#include <string>
#include <vector>

#include <optional>
#include <string_view>
#include <utility>

#include "bk/api.h"
#include "bk/tensor.h"

namespace bk {

// Why a tensor went to its backend (Cause), and why a higher-priority backend was passed over
// (PassReason). Names are the stable strings of `bkctl sched --json`: a new value is a new
// schema version.
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

BK_API std::string_view cause_name(Cause cause) noexcept;
BK_API std::string_view pass_reason_name(PassReason reason) noexcept;
BK_API std::optional<Cause> cause_from_name(std::string_view name) noexcept;
BK_API std::optional<PassReason> pass_reason_from_name(std::string_view name) noexcept;

struct BK_API PassedOver {
  int backend = -1;
  PassReason reason = PassReason::unsupported_op;
  std::string detail;
};

struct BK_API NodeReport {
  int index = 0;  // in graph.nodes()
  const Tensor* tensor = nullptr;
  int backend = -1;
  Cause cause = Cause::none;
  std::string sentence;
  std::vector<PassedOver> passed_over;
  int split = -1;  // -1 for a view outside every split (a graph of views only)
};

struct BK_API LeafReport {
  const Tensor* tensor = nullptr;
  const char* kind = "constant";  // "input", "weight", "constant"
  int backend = -1;
  Cause cause = Cause::none;
  std::string sentence;
  std::string memory;  // the buffer type it lives in ("CPU", "gpu0"), or the one assumed
};

struct BK_API SplitInputReport {
  const Tensor* tensor = nullptr;
  int from = -1, to = -1;
  size_t bytes = 0;
};

struct BK_API SplitReport {
  int backend = -1;
  int first_node = 0, last_node = 0;  // node indices, inclusive
  int computing_nodes = 0;            // nodes that are not views
  std::vector<SplitInputReport> inputs;
  size_t compute_bytes = 0;  // its backend's compute buffer reached in this split (0 unplanned)
};

// A backend that runs no node, other than the last (the fallback), and why: the report's answer
// to "why is my GPU idle?".
struct BK_API IdleBackend {
  int backend = -1;
  // The reasons it was passed over, with how many nodes each, most frequent first; empty when
  // no node ever considered it.
  std::vector<std::pair<PassReason, int>> passed_over;
  bool holds_weights = false;  // some weight of the graph lives in its memory
  // It runs some node of the graph, had that node not gone elsewhere: a reason other than
  // unsupported_op / unsupported_type. False for a device that runs none of the graph's ops,
  // where moving weights to it would not help.
  bool could_run = false;
};

struct BK_API SchedReport {
  std::vector<std::string> backends;  // device names in priority order
  std::vector<NodeReport> nodes;
  std::vector<LeafReport> leafs;
  std::vector<SplitReport> splits;
  std::vector<size_t> compute_buffer_bytes;  // per backend (0 unplanned)
  std::vector<int> nodes_per_backend;
  size_t copies = 0;        // split inputs copied per evaluation
  size_t bytes_copied = 0;  // per evaluation
  bool planned = false;     // memory was planned (reserve or alloc_graph)
  std::vector<IdleBackend> idle;
};

// The report as one compact JSON object: "backends" (the names), "planned", and "nodes",
// "leafs", "splits", "totals" and "idle_backends" with exactly the fields of schema bk.sched/v2,
// which `bkctl sched --json` embeds as they are (docs/sched.md). The one rendering of a report
// as JSON; the C API (bk/bk.h) returns it too.
BK_API std::string sched_report_json(const SchedReport& report);

}  // namespace bk
