// SPDX-License-Identifier: MIT
// bkctl: the device diagnostic CLI of bk. Parses the command line, runs one subcommand, and is
// the one place that turns errors into a line on stderr and an exit code (see exit_codes.h).

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "bk/error.h"
#include "command.h"
#include "exit_codes.h"
#include "output/help_format.h"
#include "output/term.h"
#include "probe/smoke_watchdog.h"
#include "suggest.h"
#include "version/print.h"

namespace {

constexpr const char* kFooter =
    "Exit codes (every subcommand):\n"
    "  0  ok                      3  device not found or unavailable\n"
    "  1  a check failed          4  out of memory\n"
    "  2  usage or bad input      5  device error or timeout\n"
    "\n"
    "Examples:\n"
    "  bkctl devices                                # every device, its memory and caps\n"
    "  bkctl devices --verbose                      # plus topology, ISA, plugins\n"
    "  bkctl alloc --device CPU --size 2GiB         # can I really get that memory?\n"
    "  bkctl devices --json                         # machine-readable ...\n"
    "  bkctl schema devices                         # ... and its JSON Schema\n"
    "  bkctl sched --graph transformer --json       # where each node runs, and why\n"
    "  bkctl ops --device CPU                       # op x dtype support, and why not\n"
    "  bkctl bench --device CPU                     # how fast, as a fraction of its peak\n"
    "  bkctl smoke --level 2 --junit smoke.xml      # CI hardware smoke check\n"
    "\n"
    "Run 'bkctl <command> --help' for a command's options.";

// Errors are one line each, so that scripts can show them and tests can count them, with any
// other control character (from a plugin's or driver's message) escaped.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return bkctl::printable(text);
}

void print_error(const std::string& message) {
  std::fprintf(stderr, "bkctl: %s\n", one_line(message).c_str());
}

// The subcommands the command line reached, outermost first (the app itself first).
std::vector<const CLI::App*> parsed_path(const CLI::App& app) {
  std::vector<const CLI::App*> path{&app};
  while (true) {
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : path.back()->get_subcommands({})) {
      if (sub->parsed()) next = sub;
    }
    if (next == nullptr) return path;
    path.push_back(next);
  }
}

// "bkctl alloc": the deepest subcommand the command line reached, for the "--help" hint.
std::string command_path(const CLI::App& app) {
  std::string path;
  for (const CLI::App* a : parsed_path(app)) path += (path.empty() ? "" : " ") + a->get_name();
  return path;
}

// Every spelling of every option of a (sub)command: "--device", "-d", ...
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& name : opt->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : opt->get_snames()) names.push_back("-" + name);
  }
  return names;
}

// CLI11 reports "bkctl frob" and "bkctl --frob" as "a subcommand is required"; name the word it
// did not know instead. The top level has flags only, so the first other word is the command.
std::string top_level_mistake(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.starts_with('-')) {
      const std::string name = word.substr(0, word.find('='));
      if (app.get_option_no_throw(name) != nullptr) continue;
      return "unknown option '" + word + "'" + bkctl::did_you_mean(name, option_names(app)) +
             " (run 'bkctl --help')";
    }
    std::vector<std::string> known;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->check_name(word)) return {};
      known.push_back(sub->get_name());
    }
    return "unknown command '" + word + "'" + bkctl::did_you_mean(word, known) +
           "; commands: " + fmt::format("{}", fmt::join(known, ", ")) + " (run 'bkctl --help')";
  }
  return {};
}

// CLI11 checks required options before unknown ones; an unknown flag is the likelier mistake
// ("alloc --devcie CPU" also lacks --device), so it is named first, the same way everywhere.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error) {
  const std::vector<std::string> extras = app.remaining(true);
  const bool about_extras = dynamic_cast<const CLI::RequiredError*>(&error) != nullptr ||
                            dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr;
  if (!about_extras || extras.empty()) return error.what();
  const std::string& word = extras.front();
  if (!word.starts_with('-')) return "unexpected argument '" + word + "'";
  const std::string name = word.substr(0, word.find('='));
  return "unknown option '" + word + "'" + bkctl::did_you_mean(name, option_names(*parsed_path(app).back()));
}

int run_command(const std::vector<bkctl::Command>& commands) {
  for (const bkctl::Command& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  // require_subcommand(1) makes this unreachable from the command line.
  print_error("no subcommand given (run 'bkctl --help')");
  return bkctl::kExitUsage;
}

// `bkctl --version [--json]` is answered before CLI11 parses, which would ask for a subcommand
// and know no top-level --json. Returns -1 when argv is not a version request.
int version_request(int argc, char** argv) {
  if (argc < 2 || (std::string_view(argv[1]) != "--version" && std::string_view(argv[1]) != "-V")) return -1;
  if (argc == 2) {
    bkctl::print_version_text(stdout);
    return bkctl::kExitOk;
  }
  if (argc == 3 && std::string_view(argv[2]) == "--json") {
    bkctl::print_version_json(stdout);
    return bkctl::kExitOk;
  }
  print_error(std::string("--version takes only --json, not '") + argv[2] + "' (run 'bkctl --help')");
  return bkctl::kExitUsage;
}

int run(int argc, char** argv) {
  if (const int code = version_request(argc, argv); code >= 0) return code;
  CLI::App app{"bkctl: list the compute devices bk finds and check what they can do.", "bkctl"};
  // Listed for --help; version_request() answers it.
  app.add_flag("-V,--version")
      ->description("Print version, commit, build and plugins, and exit (add --json for bk.version/v1)");
  app.require_subcommand(1);
  app.footer(kFooter);
  // Before the subcommands: each takes its parent's formatter when it is made.
  app.formatter(std::make_shared<bkctl::HelpFormatter>(bkctl::terminal_width(stdout)));
  const std::vector<bkctl::Command> commands = {
      bkctl::add_devices_command(app), bkctl::add_alloc_command(app),
      bkctl::add_schema_command(app),  bkctl::add_sched_command(app),
      bkctl::add_ops_command(app),     bkctl::add_bench_command(app, argc, argv),
      bkctl::add_smoke_command(app),
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help: printed on stdout, exit 0
  } catch (const CLI::ParseError& e) {
    if (const std::string mistake = top_level_mistake(app, argc, argv); !mistake.empty()) {
      print_error(mistake);
      return bkctl::kExitUsage;
    }
    print_error(parse_error_message(app, e) + " (run '" + command_path(app) + " --help')");
    return bkctl::kExitUsage;
  }
  return run_command(commands);
}

int run_catching(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const bk::Error& e) {
    print_error(std::string("error: ") + e.what());
    return bkctl::exit_code_for(e.code());
  } catch (const std::bad_alloc&) {
    print_error("error: out of host memory");
    return bkctl::kExitOutOfMemory;
  } catch (const std::exception& e) {
    print_error(std::string("unexpected error: ") + e.what());
    return bkctl::kExitDeviceError;
  } catch (...) {
    // Only a plugin's code can throw something that is not a std::exception.
    print_error("unexpected error: an exception of unknown type (from a device plugin?)");
    return bkctl::kExitDeviceError;
  }
}

// Output that did not reach stdout (a full disk, a closed pipe) is an error, not a success.
int check_stdout(int code) {
  if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return code;
  const int error = errno;
  print_error(std::string("error: could not write the output to stdout: ") + std::strerror(error));
  return code == bkctl::kExitOk ? bkctl::kExitDeviceError : code;
}

}  // namespace

int main(int argc, char** argv) {
  const int code = check_stdout(run_catching(argc, argv));
  // A thread abandoned by a watchdog may still be inside a device or the registry: leave without
  // running the destructors that would pull those objects from under it (smoke_watchdog.h).
  if (bk::abandoned_checks() > 0) {
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}
