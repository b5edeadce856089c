#pragma once
// The decision record of a schedule, in words: for every node its backend, cause and a
// sentence, and for each higher-priority backend passed over the reason; for every leaf where
// it lives; for every split its backend, nodes, inputs and compute buffer; and the totals.
// `bkctl sched` prints it as text or JSON (schema bk.sched/v1). Built on demand from the
// scheduler's compact state, so the scheduling hot path never formats a string.

#include <cstddef>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "sched/decision.h"

namespace bk {

class Scheduler;

struct PassedOver {
  int backend = -1;
  PassReason reason = PassReason::unsupported_op;
  std::string detail;
};

struct NodeReport {
  int index = 0;  // in graph.nodes()
  const Tensor* tensor = nullptr;
  int backend = -1;
  Cause cause = Cause::none;
  std::string sentence;
  std::vector<PassedOver> passed_over;
  int split = -1;  // -1 for a view outside every split (a graph of views only)
};

struct LeafReport {
  const Tensor* tensor = nullptr;
  const char* kind = "constant";  // "input", "weight", "constant"
  int backend = -1;
  Cause cause = Cause::none;
  std::string sentence;
  std::string memory;  // the buffer type it lives in ("CPU", "gpu0"), or the one assumed
};

struct SplitInputReport {
  const Tensor* tensor = nullptr;
  int from = -1, to = -1;
  size_t bytes = 0;
};

struct SplitReport {
  int backend = -1;
  int first_node = 0, last_node = 0;  // node indices, inclusive
  int computing_nodes = 0;            // nodes that are not views
  std::vector<SplitInputReport> inputs;
  size_t compute_bytes = 0;  // its backend's compute buffer reached in this split (0 unplanned)
};

struct SchedReport {
  std::vector<std::string> backends;  // device names in priority order
  std::vector<NodeReport> nodes;
  std::vector<LeafReport> leafs;
  std::vector<SplitReport> splits;
  std::vector<size_t> compute_buffer_bytes;  // per backend (0 unplanned)
  std::vector<int> nodes_per_backend;
  size_t copies = 0;        // split inputs copied per evaluation
  size_t bytes_copied = 0;  // per evaluation
  bool planned = false;     // memory was planned (reserve or alloc_graph)
};

// The record of the scheduler's last schedule().
SchedReport make_report(const Scheduler& scheduler);

}  // namespace bk
