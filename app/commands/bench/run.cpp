// SPDX-License-Identifier: MIT
// `bkctl bench`: runs a plan on each device, then derives the peaks and every result's fraction.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "bk/error.h"
#include "bk/registry.h"
#include "bk/strings.h"
#include "commands/bench/cli.h"
#include "exit_codes.h"
#include "output/format.h"
#include "output/term.h"
#include "probe/smoke_policy.h"
#include "probe/smoke_watchdog.h"
#include "registry_within.h"

namespace bkctl {
namespace {

using SetThreadsFn = void (*)(bk::Backend&, int);

}  // namespace

std::vector<bk::Device*> bench_devices(const BenchArgs& args) {
  const bk::Registry& registry = registry_within(args.timeout);
  std::string names = args.device;
  if (names.empty() && !args.graph_devices.empty()) names = bk::split(args.graph_devices, ',').front();
  if (names.empty()) return registry.devices();
  std::vector<bk::Device*> out;
  for (const std::string& name : bk::split(names, ',')) {
    if (bk::trim(name).empty()) continue;
    bk::Device* device = &registry.device(bk::trim(name));  // not_found: the list
    // CPU,cpu is one device, measured once.
    if (std::find(out.begin(), out.end(), device) == out.end()) out.push_back(device);
  }
  return out;
}

namespace {

BenchResult run_one(const BenchTest& test, DeviceContext& ctx) {
  if (test.group == "peak") return run_peak_test(test, ctx);
  if (test.group == "latency") return run_latency_test(test, ctx);
  if (test.group == "graph") return run_graph_test(test, ctx);
  if (test.group == "model") return run_model_test(test, ctx);
  if (test.group == "mul_mat" || test.op == "add" || test.op == "cpy") return run_kernel_test(test, ctx);
  return run_transfer_test(test, ctx);
}

// What a test's thread uses, owned with it: after a timeout the thread is abandoned inside the
// device (probe/smoke_watchdog.h) and keeps this, and the backend, alive until the process
// _Exits; nothing it touches may belong to the caller's stack.
struct WatchedTest {
  BenchArgs args;
  bk::TimingOptions timing;
  BenchResult result;
};

// run_one under the watchdog. Sets `hung` when the test did not finish within `timeout`; what
// run_one throws besides the errors it records (guarded) is rethrown.
BenchResult run_watched(const BenchTest& test, bk::Device& device,
                        const std::shared_ptr<bk::Backend>& backend, const BenchRun& run, double timeout,
                        bool& hung) {
  auto state = std::make_shared<WatchedTest>(WatchedTest{run.args, run.timing, result_for(test)});
  const auto measure = [state, backend, &device, test] {
    DeviceContext ctx{device, *backend, state->timing, state->args};
    state->result = run_one(test, ctx);
  };
  if (bk::run_within(measure, std::chrono::duration<double>(timeout))) return state->result;
  hung = true;
  BenchResult r = result_for(test);
  r.status = BenchStatus::error;
  r.error_code = bk::ErrorCode::timeout;
  r.reason =
      fmt::format("{} did not finish within --timeout {}: the device hung (try bkctl smoke --device {})",
                  test.id(), run.args.timeout, device.name());
  return r;
}

// Compute peaks: the peak kernel where it ran, else the best mul_mat of that dtype. A mul_mat
// faster than the peak kernel (F16 weights computed in F32 arithmetic, say) raises the peak to
// itself, so that no fraction reads above 100%. Bandwidth: the best device-memory test (add,
// cpy, d2d). Then every rate gets its fraction.
void derive_peaks(DeviceBench& bench) {
  for (const char* dtype : {"f32", "f16", "bf16"}) {
    Peak peak{dtype, "GFLOP/s", 0, ""};
    double kernel = 0;  // what the peak kernel measured, 0 when it did not run
    for (const BenchResult& r : bench.results) {
      if (r.status == BenchStatus::ok && r.test.dtype == dtype && r.test.group == "peak") {
        kernel = r.stats.median;
        peak.value = kernel;
        peak.source = "peak kernel";
      }
    }
    for (const BenchResult& r : bench.results) {
      if (r.status != BenchStatus::ok || r.test.dtype != dtype || r.test.op != "mul_mat") continue;
      if (r.stats.median <= peak.value) continue;
      // Inside the parentheses: bk.bench/v1 allows "best measured (...)" and nothing after it.
      peak.source =
          kernel > 0 ? fmt::format("best measured ({}, above the peak kernel's {:.3g})", r.test.id(), kernel)
                     : "best measured (" + r.test.id() + ")";
      peak.value = r.stats.median;
    }
    if (peak.value > 0) bench.peaks.push_back(peak);
  }
  Peak bw{"bandwidth", "GB/s", 0, ""};
  for (const BenchResult& r : bench.results) {
    if (r.status == BenchStatus::ok && r.test.group == "bandwidth" && r.stats.median > bw.value) {
      bw.value = r.stats.median;
      bw.source = "best measured (" + r.test.id() + ")";
    }
  }
  if (bw.value > 0) bench.peaks.push_back(bw);
  for (BenchResult& r : bench.results) {
    if (r.status != BenchStatus::ok) continue;
    const std::string want = r.test.op == "mul_mat"        ? r.test.dtype
                             : r.test.group == "bandwidth" ? "bandwidth"
                                                           : "";
    for (const Peak& p : bench.peaks) {
      if (!want.empty() && p.name == want) {
        r.fraction = r.stats.median / p.value;
        r.peak_name = p.name;
      }
    }
  }
}

// Seconds one run of `test` would take at the rate `done` (the same op and dtype at a smaller
// size) measured: matrix work grows with side^3, element work with side^2.
double predicted_run_seconds(const BenchResult& done, const BenchTest& test) {
  const double work = done.flops > 0 ? done.flops : done.bytes;
  if (done.stats.median <= 0 || work <= 0 || done.test.size <= 0) return 0;
  const double scale = static_cast<double>(test.size) / static_cast<double>(done.test.size);
  const double exponent = test.op == "mul_mat" ? 3 : 2;
  return work / (done.stats.median * 1e9) * std::pow(scale, exponent);
}

// With the default sizes, a size whose minimum runs (warm-up plus the minimum samples) would
// take more than twice the budget is skipped, with the prediction, instead of letting a slow
// device (a software rasteriser) take minutes; --size measures it anyway.
std::optional<std::string> too_slow_for_defaults(const BenchArgs& args, const bk::TimingOptions& timing,
                                                 const std::vector<BenchResult>& so_far,
                                                 const BenchTest& test) {
  if (!args.sizes.empty() || test.size <= 0) return std::nullopt;
  for (auto r = so_far.rbegin(); r != so_far.rend(); ++r) {
    if (r->status != BenchStatus::ok || r->test.op != test.op || r->test.dtype != test.dtype ||
        r->test.size >= test.size || r->unit == "us") {
      continue;
    }
    const double per_run = predicted_run_seconds(*r, test);
    const double minimum = per_run * (timing.warmup + timing.min_samples);
    if (minimum <= 2 * timing.budget_s) return std::nullopt;
    return fmt::format(
        "predicted {} ms per run from {}: its {} warm-up and {} measured runs at the least would take "
        "over twice the {:.2g} s budget; measure it with --size {}",
        format_ms(per_run), r->test.id(), timing.warmup, timing.min_samples, timing.budget_s, test.size);
  }
  return std::nullopt;
}

class Progress {
 public:
  Progress() : on_(is_terminal(stderr)) {}
  void show(size_t i, size_t n, const std::string& device, const std::string& id) {
    if (on_) std::fprintf(stderr, "\r\033[K[%zu/%zu] %s %s", i + 1, n, device.c_str(), id.c_str());
  }
  ~Progress() {
    if (on_) std::fputs("\r\033[K", stderr);
  }

 private:
  bool on_;
};

}  // namespace

void fail_check(BenchResult& result, std::string reason) {
  result.status = BenchStatus::error;
  result.error_code = bk::ErrorCode::check_failed;
  result.reason = std::move(reason);
}

int bench_exit_code(const BenchRun& run, std::string& summary) {
  int code = kExitOk, errors = 0;
  std::string first;
  for (const DeviceBench& bench : run.devices) {
    for (const BenchResult& r : bench.results) {
      if (r.status != BenchStatus::error) continue;
      ++errors;
      if (first.empty()) first = bench.device->name() + " " + r.test.id() + ": " + r.reason;
      // A failing device (5, 4, ...) outranks a wrong result (1): that needs a person first.
      const auto rank = [](int c) { return c == kExitCheckFailed ? 0 : c; };
      const int c = exit_code_for(r.error_code);
      if (code == kExitOk || rank(c) > rank(code)) code = c;
    }
  }
  if (errors > 0)
    summary = fmt::format("{} test{} ended in error (first: {})", errors, errors == 1 ? "" : "s", first);
  return code;
}

void apply_thread_count(bk::Backend& backend, int threads) {
  if (threads <= 0) return;
  void* fn = backend.device().reg().proc_address("set_threads");
  if (fn == nullptr) return;  // devices without a thread count (GPUs) are unaffected
  reinterpret_cast<SetThreadsFn>(fn)(backend, threads);
}

BenchRun run_bench(const BenchArgs& args, const BenchPlan& plan) {
  BenchRun run{args, timing_options(args), {}};
  const std::vector<bk::Device*> devices = bench_devices(args);
  if (args.threads > 0) {
    bool any = false;
    for (bk::Device* d : devices) any = any || d->reg().proc_address("set_threads") != nullptr;
    if (!any) {
      throw bk::Error(
          bk::ErrorCode::invalid_argument,
          "--threads: none of the benchmarked devices has a thread count (it applies to the CPU)");
    }
  }
  Progress progress;
  const size_t total = devices.size() * plan.tests.size();
  size_t done = 0;
  const double timeout = bk::parse_duration_seconds(args.timeout, "--timeout");
  for (bk::Device* device : devices) {
    DeviceBench bench{device, {}, {}};
    std::shared_ptr<bk::Backend> backend;
    bool hung = false;
    std::string failure;
    bk::ErrorCode failure_code = bk::ErrorCode::device_error;
    try {
      backend = device->init_backend();
      apply_thread_count(*backend, args.threads);
    } catch (const bk::Error& e) {
      failure = e.what();
      failure_code = e.code();
    }
    for (const BenchTest& test : plan.tests) {
      progress.show(done++, total, device->name(), test.id());
      if (!backend || hung) {
        BenchResult r = result_for(test);
        r.status = BenchStatus::error;
        r.error_code = hung ? bk::ErrorCode::timeout : failure_code;
        r.reason =
            hung ? "not run: the device hung in an earlier test" : "the device did not start: " + failure;
        bench.results.push_back(r);
        continue;
      }
      if (std::optional<std::string> why = too_slow_for_defaults(args, run.timing, bench.results, test)) {
        BenchResult r = result_for(test);
        r.status = BenchStatus::skipped;
        r.reason = *why;
        bench.results.push_back(r);
        continue;
      }
      bench.results.push_back(run_watched(test, *device, backend, run, timeout, hung));
    }
    derive_peaks(bench);
    run.devices.push_back(std::move(bench));
  }
  return run;
}

}  // namespace bkctl
