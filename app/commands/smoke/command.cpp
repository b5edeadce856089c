// SPDX-License-Identifier: MIT
// `bkctl smoke`: the CI hardware smoke check. Are the devices I expect here, can I allocate and
// use their memory, do they compute correctly, and fast enough? Checks per level are listed in
// lib/probe/smoke_checks.h; requirements and floors in lib/probe/smoke_policy.h.
//
// No check may hang a CI job: each runs under the watchdog of lib/probe/smoke_watchdog.h (which
// says why threads and not processes). When a check was abandoned there, the reports are written
// as always and main() leaves with std::_Exit, skipping destructors and atexit handlers that
// could block on what the stuck thread holds; the exit code is the run's (5 for the timeout).

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bk/error.h"
#include "bk/strings.h"
#include "bk/units.h"
#include "command.h"
#include "commands/smoke/cli.h"
#include "commands/smoke/fleet.h"
#include "exit_codes.h"
#include "option_checks.h"
#include "output/json_out.h"
#include "output/report_file.h"
#include "probe/input_file.h"

namespace bkctl {
namespace {

struct SmokeArgs {
  int level = 1;
  std::string devices;
  std::vector<std::string> requirements;
  std::vector<std::string> min_memory;
  std::string expect;
  std::string mem = "256MiB";
  std::string timeout = "60s";
  std::string duration = "60s";
  std::string max_drop = "10%";
  std::string outlier = "15%";
  std::string rank_timeout;
  std::string interconnect = "64MiB";
  std::string fail_on = "fail,error";
  bool json = false;
  std::string junit;
  std::string prom;
};

// A percentage option ("10%") as a fraction; a usage error naming `example` otherwise.
double required_percent(const std::string& text, const char* option, const char* example) {
  const std::optional<double> share = bk::parse_percent(text, option);
  if (!share)
    usage_error(fmt::format("invalid {} '{}': expected a percentage such as {}", option, text, example));
  return *share;
}

SmokeOptions parse_options(const SmokeArgs& args) {
  SmokeOptions options;
  options.level = args.level;
  for (const std::string& name : bk::split(args.devices, ',')) {
    if (!bk::trim(name).empty()) options.devices.push_back(bk::trim(name));
  }
  for (const std::string& text : args.requirements)
    options.requirements.push_back(bk::parse_requirement(text));
  for (const std::string& text : args.min_memory) options.min_memory.push_back(bk::parse_min_memory(text));
  if (!args.expect.empty()) {
    options.floors_path = args.expect;
    bk::SmokeFloorsFile floors = bk::parse_floors(bk::read_input_file(args.expect, "--expect"), args.expect);
    options.floors = std::move(floors.devices);
    options.interconnect_floors = floors.interconnect;
  }
  options.memory_share = bk::parse_percent(args.mem, "--mem");
  if (!options.memory_share) {
    const std::optional<size_t> mem = bk::parse_size(args.mem);
    if (!mem || *mem < 8) {
      usage_error(
          fmt::format("invalid --mem '{}': expected a size of at least 8 bytes such as 8MiB or 256MiB, or a "
                      "share of free memory such as 90%",
                      args.mem));
    }
    options.memory_bytes = *mem;
  }
  options.max_drop = required_percent(args.max_drop, "--max-drop", "10%");
  options.outlier = required_percent(args.outlier, "--outlier", "15%");
  const std::optional<size_t> interconnect = bk::parse_size(args.interconnect);
  if (!interconnect) {
    usage_error(fmt::format(
        "invalid --interconnect '{}': expected a message size such as 64MiB, or 0 to skip the check",
        args.interconnect));
  }
  options.interconnect_bytes = *interconnect;
  if (!args.rank_timeout.empty())
    options.rank_timeout = bk::parse_duration_seconds(args.rank_timeout, "--rank-timeout");
  options.timeout_seconds = bk::parse_duration_seconds(args.timeout, "--timeout");
  options.duration_seconds = bk::parse_duration_seconds(args.duration, "--duration");
  options.fail_on = bk::parse_fail_on(args.fail_on);
  return options;
}

// stdout: the JSON document with --json, else the human text (each rendered only when asked
// for); stderr: the verdict of a run that did not pass.
template <typename Json, typename Human>
void print_outcome(bool json, const Json& document, const Human& human, int exit_code,
                   const std::string& verdict) {
  if (json) {
    print_json(document());
  } else {
    std::fputs(human().c_str(), stdout);
  }
  if (exit_code != kExitOk) std::fprintf(stderr, "bkctl: smoke: %s\n", verdict.c_str());
}

// Fleet mode (commands/smoke/fleet.h): this rank's checks; rank 0 also merges and writes the
// reports. Every rank writes its own --prom, for its node's node_exporter. The other ranks print
// nothing and exit 0: their results are in rank 0's report, and its exit code is the job's.
int run_fleet(const SmokeArgs& args, SmokeOptions options, FleetLink& link) {
  // The launcher interleaves every rank's stderr: each line says whose it is.
  options.log_name = fmt::format("bkctl[rank {}]", link.rank());
  const bool root = link.rank() == 0;
  // mpirun hands the ranks a pseudo-terminal for stdout even when its own goes to a file: no colour.
  setenv("NO_COLOR", "1", 0);
  ReportFile junit(root ? args.junit : std::string(), "--junit");
  ReportFile prom(args.prom, "--prom");
  std::optional<InterconnectResult> interconnect;
  // First, while every rank is alive: a rank that dies later cannot stall it. The deadline only
  // keeps a rank that died at the start from hanging the job: generous, as ranks start unevenly.
  if (link.size() > 1 && options.interconnect_bytes > 0) {
    interconnect = link.interconnect(options.interconnect_bytes, std::max(options.timeout_seconds, 60.0));
  }
  const SmokeReport report = run_smoke(options);
  prom.commit(smoke_prometheus(report));
  const double wait = options.rank_timeout.value_or(2 * options.timeout_seconds);
  const std::vector<std::optional<std::string>> texts = link.gather(smoke_json(options, report).dump(), wait);
  if (!root) {
    link.finish(true, kExitOk);
    return kExitOk;
  }
  const FleetReport fleet = merge_fleet(options, texts, interconnect);
  junit.commit(fleet_junit(fleet));
  print_outcome(
      args.json, [&] { return fleet_json(options, fleet); }, [&] { return fleet_human(options, fleet); },
      fleet.exit_code, fleet.verdict_line);
  std::fflush(stdout);
  std::fflush(stderr);
  link.finish(std::all_of(texts.begin(), texts.end(), [](const auto& t) { return t.has_value(); }),
              fleet.exit_code);
  return fleet.exit_code;
}

int run_smoke_command(const SmokeArgs& args) {
  const SmokeOptions options = parse_options(args);
  if (launched_by_mpi()) return run_fleet(args, options, *open_fleet_link());
  // Report files fail now, not after the checks, on a bad path.
  ReportFile junit(args.junit, "--junit");
  ReportFile prom(args.prom, "--prom");
  const SmokeReport report = run_smoke(options);
  junit.commit(smoke_junit(report));
  prom.commit(smoke_prometheus(report));
  print_outcome(
      args.json, [&] { return smoke_json(options, report); }, [&] { return smoke_human(options, report); },
      report.exit_code, report.verdict_line);
  return report.exit_code;
}

}  // namespace

Command add_smoke_command(CLI::App& parent) {
  auto args = std::make_shared<SmokeArgs>();
  CLI::App* app =
      parent.add_subcommand("smoke", "CI hardware smoke check: devices present, memory, results, speed");
  app->add_option(
         "-l,--level", args->level,
         "1: enumerate, memory patterns, round trip, events (seconds); 2: plus conformance subset and "
         "matmul benchmark (under a minute); 3: plus a burn-in of every device at once for --duration")
      ->type_name("N")
      ->check(CLI::Range(1, 3).description(""));
  app->add_option("-d,--device", args->devices, "Comma-separated devices to check (default: every device)")
      ->check(names_a_device())
      ->type_name("DEVS");
  app->add_option(
         "--require", args->requirements,
         "Devices that must be present: 'CUDA>=2', 'Vulkan>=1', 'gpu>=1' (family or type; repeatable)")
      ->type_name("REQ");
  app->add_option("--min-memory", args->min_memory,
                  "A device's minimum total memory: CUDA0=80GiB (repeatable)")
      ->type_name("DEV=SIZE");
  app->add_option("--expect", args->expect,
                  "Performance floors, JSON (schema bk.floors/v1: 'bkctl schema floors')")
      ->type_name("FILE");
  app->add_option("--mem", args->mem,
                  "Device memory the memory checks fill and verify: a size, or a share of each device's "
                  "free memory (90%); level 3 holds it filled for --duration (default 256MiB)")
      ->type_name("SIZE|N%");
  app->add_option("--timeout", args->timeout, "Per-check watchdog: 60s, 500ms, 5m (default 60s)")
      ->type_name("DUR");
  app->add_option("--duration", args->duration, "How long level 3's burn-in runs (default 60s)")
      ->type_name("DUR");
  app->add_option("--max-drop", args->max_drop,
                  "Level 3 fails when throughput falls this far below its first minute (default 10%)")
      ->type_name("N%");
  app->add_option("--outlier", args->outlier,
                  "Fleet mode: a matmul result this far below the fleet's median for the same device model "
                  "fails its node (default 15%)")
      ->type_name("N%");
  app->add_option("--interconnect", args->interconnect,
                  "Fleet mode: the message size of the interconnect check between the ranks, 0 to skip it "
                  "(default 64MiB)")
      ->type_name("SIZE");
  app->add_option("--rank-timeout", args->rank_timeout,
                  "Fleet mode: how long rank 0 waits for the other ranks' reports after its own checks "
                  "(default: twice --timeout)")
      ->type_name("DUR");
  app->add_option(
         "--fail-on", args->fail_on,
         "Statuses that fail the run: any of fail, error, skipped, n/a, or none (default fail,error)")
      ->type_name("LIST");
  app->add_flag("--json", args->json, "Print JSON (schema bk.smoke/v2) instead of the summary");
  app->add_option("--junit", args->junit, "Also write a JUnit XML report (one testcase per device x check)")
      ->type_name("FILE");
  app->add_option("--prom", args->prom,
                  "Also write the results as Prometheus metrics, for node_exporter's textfile collector "
                  "(written whole, then renamed over FILE)")
      ->type_name("FILE");
  app->footer(
      "Each check is pass, fail, error (with the message), skipped (it could have run but did not) or\n"
      "n/a (the device cannot run it by design, e.g. events on the CPU); a check that does not\n"
      "finish within --timeout is a timed-out error and the command still exits promptly.\n"
      "Exit codes: 0 pass, 1 a check failed or a requirement is not met, 2 usage, 3 a required device\n"
      "is missing, 4 only allocations failed (too little memory), 5 a check errored or timed out.\n"
      "Under mpirun or srun (fleet mode) every rank checks its node and rank 0 writes one merged\n"
      "report (schema bk.fleet/v1) and JUnit file; --prom stays per node. See docs/ci.md for CI jobs\n"
      "and fleets.\n"
      "\n"
      "Examples:\n"
      "  bkctl smoke                                        # level 1 on every device\n"
      "  bkctl smoke --level 2 --junit smoke.xml            # plus conformance and matmul speed\n"
      "  bkctl smoke --prom /var/lib/node_exporter/bk.prom  # metrics for Prometheus\n"
      "  bkctl smoke --require 'CUDA>=2' --min-memory CUDA0=80GiB --expect floors.json\n"
      "  bkctl smoke --level 3 --duration 5m --mem 90%          # burn-in, every device at once\n"
      "  mpirun -n 16 --map-by ppr:1:node bkctl smoke --level 2 --json   # a fleet");
  return {app, [args] { return run_smoke_command(*args); }};
}

}  // namespace bkctl
