// SPDX-License-Identifier: MIT
#pragma once
// `bkctl sched`: the pieces of the command, one file each in commands/sched/ -- the options and
// the session they set up (setup.cpp), the run against the float64 reference (run.cpp), and
// the two outputs, text (text.cpp) and JSON bk.sched/v2 (json.cpp); with --model, the memory
// plan of a GGUF model (model.cpp, JSON bk.plan/v1). command.cpp wires them up.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bk/device.h"
#include "bk/graph.h"
#include "bk/registry.h"
#include "bk/sched_report.h"
#include "bk/scheduler.h"
#include "output/json_out.h"
#include "output/term.h"
#include "probe/model_graphs.h"

namespace bkctl {

struct SchedArgs {
  std::string graph;       // built-in name; empty with graph_file
  std::string graph_file;  // bk.graph/v1 file
  bk::ModelParams model;
  std::string dtype = "f32";
  std::string devices;            // "Vulkan0,CPU"; empty: every device, the CPU last
  std::string weights_on;         // a device name
  std::string weights_split;      // "0.5,0.5" over the devices
  std::vector<std::string> pins;  // "NAME=DEV"
  bool no_offload = false;
  int copies = 1;
  bool verbose = false;
  bool json = false;
  bool run = false;
  std::string timeout = "5m";  // --run: a computation still going after it is a hung device
  // --model: a GGUF file to plan instead of a graph.
  std::string model_file;
  int64_t ctx = 0;         // 0: the model's training context, at most kDefaultModelContext
  bool batch_set = false;  // --batch was given (a model's default batch is 512, llama.cpp's)
  bool fit = false;
  std::string margin = "1GiB";
};

// The devices --devices names (every device when empty), the CPU appended last; Error
// invalid_argument for a repeated name or a CPU not last, not_found for an unknown device.
std::vector<bk::Device*> pick_devices(const std::string& list, const bk::Registry& registry);
// The index of the device called `name` among `backends`; Error(invalid_argument) naming
// `option` when it is not one of them.
size_t device_index(const std::vector<std::unique_ptr<bk::Backend>>& backends, const std::string& name,
                    const char* option);
// --weights-split's shares, one per device; Error(invalid_argument) otherwise.
std::vector<double> parse_fractions(const std::string& text, size_t count);

// Everything the options name, resolved: the graph, the devices and their backends, where each
// weight lives. Throws bk::Error: invalid_argument (exit 2) for bad options and graph files,
// not_found (exit 3) for unknown devices.
struct SchedSession {
  SchedSession(const SchedArgs& args, const bk::Registry& registry);

  // A fresh graph from the options (the built-in one or the graph file).
  bk::Graph build_graph() const;
  // A scheduler over the backends with the options and pins applied to `graph`.
  std::unique_ptr<bk::Scheduler> make_scheduler(const bk::Graph& graph) const;
  // Plans `g` (a graph from build_graph()) with `sched` as if the weights were where the
  // options put them, allocating nothing: the report then shows the compute buffers.
  void plan_without_memory(bk::Graph& g, bk::Scheduler& sched) const;
  std::vector<bk::Device*> backend_devices() const;

  SchedArgs args;
  bk::Graph graph;
  std::vector<std::unique_ptr<bk::Backend>> backends;  // priority order, the CPU last
  std::vector<bk::Tensor*> weights;                    // in order of first use
  std::vector<size_t> weight_device_of;                // per weight: backend index
  std::vector<std::pair<std::string, size_t>> pins;    // tensor name, backend index
};

struct OutputCheck {
  std::string name;
  size_t elements = 0;
  double error = 0;
  bool ok = false;
};

struct RunResult {
  double limit = 0;  // verify::graph_limit of the graph: 0 when it only moves data
  std::vector<OutputCheck> outputs;
  bool ok() const noexcept;
};

// Computes session.graph with real, seeded weights on the chosen devices through `sched` (the
// weights are placed first, so the report shows real memory), then evaluates the float64
// reference on the same graph and values (probe/graph_run.h), and judges every output by
// normalised mean squared error against the graph's limit (probe/verify/limits.h).
RunResult run_against_reference(SchedSession& session, bk::Scheduler& sched);

// Refuses a --run that cannot fit before anything is allocated: per device, the weights the
// options put there and its compute buffers, plus on the CPU the host memory the float64
// check takes (bk::verification_host_bytes), against what the device says is free. Throws
// bk::Error(out_of_memory) (exit 4) naming the device, the parts and what to do.
void check_run_fits(const SchedSession& session);

// `bkctl sched --model FILE`: plans the model over the devices and prints the plan; exit 0 when
// it fits, kExitOutOfMemory (4) when it does not (the plan, with what would fit, still printed).
int run_model_plan(const SchedArgs& args);

// The scheduler's placement as text: the splits, every node with --verbose, the totals and the
// idle devices. sched_text and the model plan share it.
std::string placement_text(const bk::SchedReport& report, bool verbose, const TermStyle& style);

std::string sched_text(const SchedSession& session, const bk::SchedReport& report, const RunResult* run,
                       const TermStyle& style);
ojson sched_document(const SchedSession& session, const bk::SchedReport& report, const RunResult* run);

}  // namespace bkctl
