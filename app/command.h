// SPDX-License-Identifier: MIT
#pragma once
// How bkctl's subcommands plug into main: each commands/<name>/command.cpp adds its CLI11 subcommand
// (options, help, footer with examples) and returns what to run once the command line parsed. Running is kept
// out of CLI11's callbacks so that every error reaches main's one handler.
//
// A command's run() returns an exit code (see exit_codes.h) for outcomes it reports itself (a
// failed check), and throws bk::Error for everything else; main turns that into one line on
// stderr and exit_code_for() (exit_codes.h).

#include <CLI/CLI.hpp>

#include <functional>

namespace bkctl {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command add_devices_command(CLI::App& parent);
Command add_alloc_command(CLI::App& parent);
Command add_schema_command(CLI::App& parent);
Command add_sched_command(CLI::App& parent);
Command add_ops_command(CLI::App& parent);
Command add_smoke_command(CLI::App& parent);
// argv is recorded in the bench JSON.
Command add_bench_command(CLI::App& parent, int argc, char** argv);

}  // namespace bkctl
