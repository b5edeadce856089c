// SPDX-License-Identifier: MIT
// `bkctl sched`: where every node of a graph runs across devices, and why.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bk/error.h"
#include "command.h"
#include "commands/sched/cli.h"
#include "exit_codes.h"
#include "probe/smoke_policy.h"
#include "probe/smoke_watchdog.h"
#include "registry_within.h"

namespace bkctl {
namespace {

constexpr const char* kSchedFooter =
    "Graphs: mlp, attention, transformer (a llama-like decoder), or --graph-file FILE.json\n"
    "(schema bk.graph/v1: 'bkctl schema graph'; format in docs/sched.md). Example files are in\n"
    "docs/examples/ of the source, /usr/share/doc/bkctl/examples/ once installed.\n"
    "Weights live on the CPU unless --weights-on or --weights-split says otherwise (split\n"
    "fractions follow --devices order, the CPU last, by bytes in the order layers use them).\n"
    "Simulated devices for machines without a GPU: BK_SIM_DEVICES='gpu0:type=gpu,ops=mul_mat+add,mem=8GiB'\n"
    "\n"
    "With --model FILE.gguf: the memory plan of a model (weights, KV cache, compute buffers per\n"
    "device against free memory) and where its layers and nodes run; --fit fits it (docs/models.md).\n"
    "--batch defaults to 512 there, the prompt batch the compute buffers are sized for.\n"
    "\n"
    "Examples:\n"
    "  bkctl sched --graph transformer --devices Vulkan0,CPU --weights-on Vulkan0\n"
    "  BK_SIM_DEVICES='gpu0:ops=mul_mat+add' bkctl sched --devices gpu0,CPU --weights-on gpu0 --verbose\n"
    "  bkctl sched --graph transformer --layers 32 --hidden 4096 --heads 32 --weights-split 0.5,0.5 --json\n"
    "  bkctl sched --graph-file docs/examples/swiglu-ffn.json --pin ffn_out=CPU --run\n"
    "  bkctl sched --model llama-3-8b-q4_k_m.gguf --devices Vulkan0,CPU --ctx 8192 --fit";

void add_graph_options(CLI::App& app, SchedArgs& args) {
  app.add_option("--graph", args.graph, "Built-in graph: mlp, attention, transformer (default transformer)")
      ->type_name("NAME");
  app.add_option("--graph-file", args.graph_file,
                 "A graph file (JSON, schema bk.graph/v1) instead of --graph")
      ->type_name("FILE");
  app.add_option("--layers", args.model.layers, "Layers of the built-in graph")->capture_default_str();
  app.add_option("--hidden", args.model.hidden, "Hidden size")->capture_default_str();
  app.add_option("--heads", args.model.heads, "Attention heads (hidden must be a multiple)")
      ->capture_default_str();
  app.add_option("--batch", args.model.batch, "Tokens per evaluation")->capture_default_str();
  app.add_option("--dtype", args.dtype, "Weight dtype: f32, f16, bf16")
      ->type_name("NAME")
      ->capture_default_str();
}

void add_placement_options(CLI::App& app, SchedArgs& args) {
  app.add_option("--devices", args.devices,
                 "Devices in priority order, e.g. Vulkan0,CPU (default: all, the CPU last)")
      ->type_name("DEVS");
  app.add_option("--weights-on", args.weights_on, "Put every weight on this device")->type_name("DEV");
  app.add_option("--weights-split", args.weights_split,
                 "Split the weights over --devices by these fractions, e.g. 0.5,0.5")
      ->type_name("LIST");
  app.add_option("--pin", args.pins, "Keep a tensor on a device (repeatable)")->type_name("NAME=DEV");
  app.add_flag("--no-offload", args.no_offload, "Never move a host-weight op to a device that asks for it");
  app.add_option("--copies", args.copies, "Pipeline copies of every split input")->capture_default_str();
}

void add_model_options(CLI::App& app, SchedArgs& args) {
  app.add_option("--model", args.model_file,
                 "Plan a GGUF model (llama, mistral, qwen2) from its header: memory per device and placement")
      ->type_name("FILE");
  app.add_option("--ctx", args.ctx, "With --model: context (KV cache) length; 0: the model's, at most 4096")
      ->capture_default_str();
  app.add_flag(
      "--fit", args.fit,
      "With --model: put as many layers on the devices as their free memory allows, the rest on the CPU");
  app.add_option("--margin", args.margin, "With --model: memory to keep free on every device")
      ->type_name("SIZE")
      ->capture_default_str();
}

// run_against_reference under the watchdog. On a timeout the computing thread is abandoned
// inside a device (probe/smoke_watchdog.h): the session and scheduler it uses are released,
// never destroyed, and main() leaves with _Exit.
RunResult run_watched(std::unique_ptr<SchedSession>& session, std::unique_ptr<bk::Scheduler>& sched,
                      double timeout) {
  auto result = std::make_shared<RunResult>();
  SchedSession* s = session.get();
  bk::Scheduler* scheduler = sched.get();
  const auto compute = [result, s, scheduler] { *result = run_against_reference(*s, *scheduler); };
  if (bk::run_within(compute, std::chrono::duration<double>(timeout))) return *result;
  std::vector<std::string> names;
  for (const bk::Device* d : s->backend_devices()) names.push_back(d->name());
  (void)session.release();
  (void)sched.release();
  throw bk::Error(
      bk::ErrorCode::timeout,
      fmt::format("--run did not finish within --timeout {} on {}: a device hung (try bkctl smoke "
                  "--device {})",
                  s->args.timeout, fmt::join(names, ","), fmt::join(names, ",")));
}

int run_sched(const SchedArgs& args) {
  if (!args.model_file.empty()) return run_model_plan(args);
  const double timeout = bk::parse_duration_seconds(args.timeout, "--timeout");
  auto owned_session = std::make_unique<SchedSession>(args, registry_within(args.timeout));
  SchedSession& session = *owned_session;
  std::unique_ptr<bk::Scheduler> sched = session.make_scheduler(session.graph);
  std::unique_ptr<RunResult> run;
  if (args.run) {
    check_run_fits(session);
    run = std::make_unique<RunResult>(run_watched(owned_session, sched, timeout));
  } else {
    session.plan_without_memory(session.graph, *sched);
  }
  const bk::SchedReport report = sched->report();
  if (args.json) {
    print_json(sched_document(session, report, run.get()));
  } else {
    std::fputs(sched_text(session, report, run.get(), term_style_for(stdout)).c_str(), stdout);
  }
  if (run == nullptr || run->ok()) return kExitOk;
  std::fprintf(stderr, "bkctl: sched: --run: an output is above the limit against the float64 reference\n");
  return kExitCheckFailed;
}

}  // namespace

Command add_sched_command(CLI::App& parent) {
  auto args = std::make_shared<SchedArgs>();
  CLI::App* app =
      parent.add_subcommand("sched", "Show where every node of a graph runs across devices, and why");
  add_graph_options(*app, *args);
  add_placement_options(*app, *args);
  add_model_options(*app, *args);
  app->add_flag("-v,--verbose", args->verbose,
                "One line per node: its backend, cause, and the backends passed over");
  app->add_flag("--json", args->json, "Print JSON (schema bk.sched/v2): every node, leaf and split");
  app->add_flag(
      "--run", args->run,
      "Compute with random weights on the chosen devices and compare with the float64 reference (exit 1 "
      "above the limit)");
  app->add_option("--timeout", args->timeout,
                  "Give up finding the devices, or with --run computing, after this long (exit 5)")
      ->type_name("DUR")
      ->capture_default_str();
  app->footer(kSchedFooter);
  return {app, [app, args] {
            args->batch_set = app->count("--batch") > 0;
            return run_sched(*args);
          }};
}

}  // namespace bkctl
