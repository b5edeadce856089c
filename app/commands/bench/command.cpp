// SPDX-License-Identifier: MIT
// `bkctl bench`: how fast each device is on real work, against its own measured peak.
#include <fmt/format.h>

#include <cstdio>

#include "bk/error.h"
#include "command.h"
#include "commands/bench/cli.h"
#include "exit_codes.h"
#include "option_checks.h"
#include "output/report_file.h"
#include "output/term.h"
#include "probe/bench_compare.h"
#include "probe/smoke_policy.h"

namespace bkctl {
namespace {

constexpr const char* kBenchFooter =
    "Tests (--op): peak, mul_mat, gemv, add, cpy, d2d, h2d, d2h, h2d_pinned, d2h_pinned,\n"
    "graph_latency, event_latency, graph. --size N: mul_mat runs N x N x N, gemv an N x N weight\n"
    "times one column (decode); memory tests move N*N f32 elements.\n"
    "Each result is a median of repetitions filling --budget after --warmup runs, checked against a\n"
    "reference; '%peak' divides by the peak kernel where the device has one, else by the best\n"
    "measured rate of that dtype (labelled 'best measured'). Format and method: docs/bench.md.\n"
    "--model FILE.gguf: tests pp (--pp tokens in one batch) and tg (--tg tokens one at a time) in\n"
    "tokens/s, every layer on the benchmarked device; --check compares the logits first\n"
    "(docs/models.md). --tokens 1,260,300 --logits out.json writes the logits of that sequence\n"
    "instead, to compare with another implementation.\n"
    "\n"
    "Examples:\n"
    "  bkctl bench --device CPU\n"
    "  bkctl bench --quick                                 # every device, in seconds\n"
    "  bkctl bench --device Vulkan0 --op mul_mat --dtype f16 --size 1024\n"
    "  bkctl bench --device CPU --graph transformer --devices Vulkan0\n"
    "  bkctl bench --device CPU --json > before.json && bkctl bench --device CPU --baseline before.json\n"
    "  bkctl bench --device CPU --plot roofline.svg\n"
    "  bkctl bench --device Vulkan0 --model tiny-llama-q4_k_m.gguf --check";

int run_bench_command(const BenchArgs& args) {
  if (args.json && args.csv) usage_error("give --json or --csv, not both");
  if (!args.logits.empty() || !args.tokens.empty()) return run_logits(args);
  const BenchPlan plan = make_plan(args);
  timing_options(args);  // reject a bad --budget or --timeout before anything runs
  bk::parse_duration_seconds(args.timeout, "--timeout");
  const double tolerance = parse_tolerance(args.tolerance);
  ReportFile plot(args.plot, "--plot");  // fails now, not after the run, on a bad path
  if (args.list) {
    std::fputs(plan_listing(plan).c_str(), stdout);
    return kExitOk;
  }
  if (!args.baseline.empty()) {
    // Fail fast on a baseline of another schema or device: compare against a run with no results.
    BenchRun empty{args, {}, {}};
    for (bk::Device* d : bench_devices(args)) empty.devices.push_back({d, {}, {}});
    compare_with_baseline(empty, args.baseline, tolerance);
  }
  const BenchRun run = run_bench(args, plan);
  BaselineReport baseline;
  if (!args.baseline.empty()) baseline = compare_with_baseline(run, args.baseline, tolerance);
  if (plot.wanted()) {
    plot.commit(roofline_svg(run));
    std::fprintf(stderr, "bkctl: wrote the roofline to %s\n", plot.path().c_str());
  }
  if (args.json) {
    ojson doc = bench_document(run);
    if (!args.baseline.empty()) doc["baseline"] = baseline.json;
    print_json(doc);
  } else if (args.csv) {
    std::fputs(bench_csv(run).c_str(), stdout);
  } else {
    std::string text = bench_text(run, term_style_for(stdout));
    if (!args.baseline.empty()) {
      text += "Baseline " + args.baseline + ":\n";
      for (const std::string& line : baseline.lines) text += "  " + line + "\n";
      if (baseline.lines.empty()) text += "  no test in common with the baseline\n";
    }
    std::fputs(text.c_str(), stdout);
  }
  std::string errors;
  const int code = bench_exit_code(run, errors);
  if (!errors.empty()) std::fprintf(stderr, "bkctl: bench: %s\n", errors.c_str());
  if (baseline.regressions > 0) {
    std::fprintf(stderr, "bkctl: %d regression%s against %s\n", baseline.regressions,
                 baseline.regressions == 1 ? "" : "s", args.baseline.c_str());
    if (code == kExitOk) return kExitCheckFailed;
  }
  return code;
}

}  // namespace

Command add_bench_command(CLI::App& parent, int argc, char** argv) {
  auto args = std::make_shared<BenchArgs>();
  args->argv.assign(argv, argv + argc);
  CLI::App* app = parent.add_subcommand("bench", "Measure each device on real work, against its own peak");
  app->add_option("-d,--device", args->device, "Devices to measure, e.g. CPU or Vulkan0,CPU (default: all)")
      ->check(names_a_device())
      ->type_name("DEVS");
  app->add_option("--op", args->ops, "Only these tests, comma-separated (see below)")->type_name("LIST");
  app->add_option("--dtype", args->dtypes,
                  "Weight dtypes for mul_mat and peak: f32,f16,bf16 (the default), and for mul_mat "
                  "the quantized q8_0,q4_0,q4_k,q6_k")
      ->type_name("LIST");
  app->add_option("--size", args->sizes,
                  "Sides, comma-separated (default mul_mat 256,512,1024; gemv 4096; memory 1024,4096)")
      ->type_name("LIST");
  app->add_option("--graph", args->graph, "Only this whole graph: mlp, attention, transformer")
      ->type_name("NAME");
  app->add_option("--devices", args->graph_devices,
                  "Graph tests: schedule over these devices, in priority order, the CPU added last "
                  "(default: the benchmarked device); without --device, bench only the first of them")
      ->type_name("DEVS");
  app->add_option("--model", args->model,
                  "A GGUF model (llama, mistral, qwen2) with its weights: prompt processing (pp) and "
                  "generation (tg) in tokens/s, as llama-bench measures them")
      ->type_name("FILE");
  app->add_option("--pp", args->pp, "With --model: prompt tokens, evaluated in one batch")
      ->capture_default_str();
  app->add_option("--tg", args->tg, "With --model: tokens generated one after another")
      ->capture_default_str();
  app->add_flag("--check", args->check,
                "With --model: first compare the logits with the float64 reference on the same weights "
                "(a wrong result is an error, exit 1)");
  app->add_flag("--no-mmap", args->no_mmap,
                "With --model: copy the CPU's weights into memory instead of reading them in place from "
                "the file's mapping (llama.cpp's --no-mmap)");
  app->add_option("--tokens", args->tokens, "With --model and --logits: token ids to evaluate in one batch")
      ->type_name("LIST");
  app->add_option("--logits", args->logits,
                  "With --model and --tokens: write every position's logits and argmax to this JSON file "
                  "(schema bk.logits/v1) instead of measuring")
      ->type_name("FILE");
  app->add_option("--budget", args->budget, "Measuring time per test, e.g. 0.5s or 50ms")
      ->type_name("DUR")
      ->capture_default_str();
  app->add_flag(
      "--quick", args->quick,
      "A first look in seconds: one size per group (mul_mat 512, gemv 2048, memory 2048) and a 0.1s "
      "budget, unless --size or --budget say otherwise");
  app->add_option("--warmup", args->warmup, "Unmeasured runs before each test")->capture_default_str();
  app->add_option(
         "--threads", args->threads,
         "Thread count for devices that have one (the CPU; default: the physical cores bkctl may run on)")
      ->check(CLI::Range(1, 4096).description(""));
  app->add_option("--timeout", args->timeout,
                  "Per-test watchdog: a test still running after it is an error (exit 5)")
      ->type_name("DUR")
      ->capture_default_str();
  app->add_flag("--list", args->list, "List the selected tests and exit");
  app->add_flag("--json", args->json, "Print JSON (schema bk.bench/v1)");
  app->add_flag("--csv", args->csv, "Print CSV, one row per test");
  app->add_option("--plot", args->plot,
                  "Also write a roofline to this SVG file: all devices overlaid, then one per device")
      ->type_name("FILE");
  app->add_option("--baseline", args->baseline,
                  fmt::format("Compare with an earlier --json run; exit 1 on a regression. A test with fewer "
                              "than {} samples or a cv above {:.0f}% on either side is not judged unless it "
                              "lost more than {:.0f}%",
                              bk::kMinCompareSamples, 100 * bk::kMaxCompareCv, 100 * bk::kGrossDrop))
      ->type_name("FILE");
  app->add_option("--tolerance", args->tolerance, "Allowed slowdown against --baseline, beyond noise")
      ->type_name("PCT")
      ->capture_default_str();
  app->footer(kBenchFooter);
  return {app, [args] { return run_bench_command(*args); }};
}

}  // namespace bkctl
