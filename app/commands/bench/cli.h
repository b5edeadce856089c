// SPDX-License-Identifier: MIT
#pragma once
// `bkctl bench`: the pieces of the command, one file each in commands/bench/ -- the test plan and
// its selection (plan.cpp), the measurements on a device (ops.cpp: kernels and latency;
// transfer.cpp: copies; graphs.cpp: whole graphs through the scheduler), running a plan and
// deriving the peaks (run.cpp), the outputs (text.cpp: table and CSV; json.cpp: bk.bench/v1 and
// the baseline comparison; roofline_svg.cpp: the roofline). command.cpp wires them up.
//
// Errors: bk::Error -- invalid_argument (exit 2) for bad options and baselines, not_found
// (exit 3) for unknown devices. A test that fails on the device is a result with status error,
// never an exception out of the command.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bk/device.h"
#include "bk/error.h"
#include "output/json_out.h"
#include "output/term.h"
#include "probe/bench_timer.h"
#include "probe/stats.h"

namespace bk {
class Graph;
class Scheduler;
}  // namespace bk

namespace bkctl {

inline constexpr const char* kDefaultBudget = "0.5s";
inline constexpr const char* kQuickBudget = "0.1s";

struct BenchArgs {
  std::vector<std::string> argv;  // the invocation, for the JSON record
  std::string device;             // comma list; empty: every device
  std::string ops;                // comma list of op names; empty: all
  std::string dtypes;             // comma list; empty: f32, f16, bf16
  std::string sizes;              // comma list of sides; empty: defaults per kind
  std::string graph;              // mlp|attention|transformer; empty: all three
  std::string graph_devices;      // --devices for graph tests; empty: the bench device (+ CPU)
  std::string budget = kDefaultBudget;
  int warmup = 2;
  bool quick = false;  // one size per group and kQuickBudget unless --size / --budget say otherwise
  int threads = 0;     // 0: the device's default
  bool list = false;
  bool json = false;
  bool csv = false;
  std::string plot;      // SVG path
  std::string baseline;  // bk.bench/v1 path
  std::string tolerance = "10%";
  std::string timeout = "5m";  // per test: a device that hangs fails the test (exit 5), not the job
  // --model: a GGUF model's prompt processing and generation, llama-bench's pp and tg.
  std::string model;
  int pp = 512;
  int tg = 128;
  bool check = false;    // compare the model's logits with the float64 reference first
  bool no_mmap = false;  // copy the CPU's weights instead of reading them from the file's mapping
  std::string tokens;    // --tokens 1,260,300: a sequence to evaluate for --logits
  std::string logits;    // --logits out.json: every position's logits (bk.logits/v1)
};

enum class BenchStatus { ok, unsupported, skipped, error };
const char* bench_status_name(BenchStatus status) noexcept;

// One test of the plan, device-independent.
struct BenchTest {
  std::string group;          // "peak", "mul_mat", "bandwidth", "transfer", "latency", "graph"
  std::string op;             // "mul_mat", "add", "cpy", "h2d", ..., "graph"
  std::string dtype;          // "f32", ...; empty where it does not apply
  int64_t size = 0;           // matrix side, element side (n*n elements), or 0
  std::string graph;          // for group graph: mlp, attention, transformer
  std::string id() const;     // "mul_mat/f16/1024", "h2d/4096", "graph/mlp"
  std::string label() const;  // size for humans: "1024^3", "16.0 MiB", ""
};

struct SplitInfo {
  std::string device;
  int nodes = 0;
  double flops = 0;
  // Medians over profiled evaluations (Scheduler::compute_profiled); 0 until profiled.
  double copy_s = 0;
  double compute_s = 0;
};

// How a result's repetitions were timed.
inline constexpr const char* kTimerDevice = "device events";  // Event::seconds_since around the work
inline constexpr const char* kTimerHost = "host clock";       // around submit + synchronize()

struct BenchResult {
  BenchTest test;
  BenchStatus status = BenchStatus::skipped;
  std::string timer = kTimerHost;
  std::string reason;  // unsupported/skipped/error: why
  // Status error: which kind, for the exit code -- check_failed for a wrong result,
  // out_of_memory, device_error or timeout for the device failing.
  bk::ErrorCode error_code = bk::ErrorCode::device_error;
  std::string unit;  // "GFLOP/s", "GB/s", "us", "eval/s"
  bool higher_is_better = true;
  bk::SampleStats stats;           // in unit, per sample
  bool ci_met = true;              // the median's interval got within the timing's ci_target
  double flops = 0;                // per run, for the roofline (0: none)
  double bytes = 0;                // per run, as counted for the unit
  std::optional<double> fraction;  // of the matching peak
  std::string peak_name;           // which peak the fraction is of: "f32 compute", "bandwidth"
  std::vector<SplitInfo> splits;   // graph tests
  // Model tests: bytes each device holds (weights, KV cache, compute buffers), of which `mapped`
  // are weights read in place from the file, and the check.
  struct Memory {
    std::string device;
    size_t bytes = 0;
    size_t mapped = 0;
  };
  std::vector<Memory> memory;
  std::optional<double> check_nmse, check_limit;
};

struct Peak {
  std::string name;    // "f32", "f16", "bf16", "bandwidth"
  std::string unit;    // GFLOP/s or GB/s
  double value = 0;    // 0: none (nothing of that kind ran)
  std::string source;  // "peak kernel" or "best measured (<test id>)"
};

struct DeviceBench {
  bk::Device* device = nullptr;
  std::vector<BenchResult> results;
  std::vector<Peak> peaks;
};

struct BenchRun {
  BenchArgs args;
  bk::TimingOptions timing;
  std::vector<DeviceBench> devices;
};

// plan.cpp
struct BenchPlan {
  std::vector<BenchTest> tests;
};
// Throws invalid_argument (exit 2) naming the unknown op, dtype, size or graph and the choices.
BenchPlan make_plan(const BenchArgs& args);
std::vector<std::string> bench_op_names();
bk::TimingOptions timing_options(const BenchArgs& args);
double parse_tolerance(const std::string& text);

// ops.cpp / graphs.cpp: one measured test (never throws for device failures).
struct DeviceContext {
  bk::Device& device;
  bk::Backend& backend;
  const bk::TimingOptions& timing;
  const BenchArgs& args;
};
BenchResult run_kernel_test(const BenchTest& test, DeviceContext& ctx);
BenchResult run_transfer_test(const BenchTest& test, DeviceContext& ctx);
BenchResult run_latency_test(const BenchTest& test, DeviceContext& ctx);
BenchResult run_peak_test(const BenchTest& test, DeviceContext& ctx);
BenchResult run_graph_test(const BenchTest& test, DeviceContext& ctx);
// clock.cpp: one repetition of work queued on `backend`, timed with two timing events
// when the device has them (caps().event_timing: Vulkan, CUDA), else on the host clock around
// the submission and synchronize(). time() returns with the backend synchronized. Errors: what
// the events or the work throw.
class RepetitionClock {
 public:
  RepetitionClock(bk::Device& device, bk::Backend& backend);
  double time(const std::function<void()>& submit);
  const char* timer() const noexcept { return start_ ? kTimerDevice : kTimerHost; }

 private:
  bk::Backend& backend_;
  std::unique_ptr<bk::Event> start_, stop_;
};

// plan.cpp: a result for `test`, status skipped, with the unit and direction of its group
// (whatever becomes of it, every result has its unit).
BenchResult result_for(const BenchTest& test);

// Marks `result` as a wrong result (status error, check_failed) with the reason.
void fail_check(BenchResult& result, std::string reason);

// Times `run` (seconds per repetition) and converts each sample to the result's unit with `to_unit`.
void measure_into(BenchResult& result, const std::function<double()>& run, const bk::TimingOptions& timing,
                  const std::function<double(double)>& to_unit);

// run.cpp. The exit code of a finished run: every error result counts, the worst kind first
// (device error or timeout 5, out of memory 4, wrong result 1); 0 when none. `summary` gets a
// line for stderr naming how many and the first.
int bench_exit_code(const BenchRun& run, std::string& summary);
// The devices to bench: --device, else every device; with --devices and no --device, only the
// first of --devices (a graph test would run the same schedule on every bench device).
// Throws not_found (exit 3) listing the devices there are.
std::vector<bk::Device*> bench_devices(const BenchArgs& args);
BenchRun run_bench(const BenchArgs& args, const BenchPlan& plan);
void apply_thread_count(bk::Backend& backend, int threads);

// text.cpp
// Grouped tables fitted to style.width; why a test did not run is a numbered note under its table.
std::string bench_text(const BenchRun& run, const TermStyle& style);
std::string bench_csv(const BenchRun& run);
std::string plan_listing(const BenchPlan& plan);

// json.cpp
ojson bench_document(const BenchRun& run);
struct BaselineReport {
  std::vector<std::string> lines;  // one per compared test, human-readable
  int regressions = 0;
  ojson json;
};
// Throws invalid_argument (exit 2) for an unreadable file, another schema or another device.
BaselineReport compare_with_baseline(const BenchRun& run, const std::string& path, double tolerance);

// graphs.cpp. The devices a graph test schedules over, in priority order: --devices, else the
// bench device; the CPU last.
std::vector<std::string> graph_device_names(const BenchArgs& args, const bk::Device& bench_device);
// Those devices with a backend each: the bench's own for the bench device, new ones (with
// --threads applied) for the others, which this owns.
struct GraphBackends {
  explicit GraphBackends(DeviceContext& ctx);
  std::vector<bk::Device*> devices;
  std::vector<bk::Backend*> list;
  std::vector<std::unique_ptr<bk::Backend>> owned;
};
// Where an evaluation's time goes: a few evaluations with every split timed on its own (a
// quarter of the budget, 3 to 25 of them), medians per split into `splits`.
void profile_splits(bk::Scheduler& sched, bk::Graph& graph, double eval_seconds,
                    const bk::TimingOptions& timing, std::vector<SplitInfo>& splits);
// One SplitInfo per split of the schedule (device, nodes, flops) into result.splits.
void add_splits(const bk::Scheduler& sched, const bk::Graph& graph, const std::vector<bk::Device*>& devices,
                BenchResult& result);

// model.cpp: prompt processing (pp) and generation (tg) of a GGUF model with its weights.
BenchResult run_model_test(const BenchTest& test, DeviceContext& ctx);
// logits.cpp: --model with --tokens and --logits: evaluates the tokens in one batch on the first
// bench device and writes bk.logits/v1 to the file. Exit 0, or 1 when --check fails.
int run_logits(const BenchArgs& args);
// Opens --model and checks it can be built (exit 2 otherwise): the plan's display name for it.
std::string model_test_name(const BenchArgs& args);

// roofline_svg.cpp
std::string roofline_svg(const BenchRun& run);

}  // namespace bkctl
