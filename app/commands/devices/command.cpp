// SPDX-License-Identifier: MIT
// `bkctl devices`: every device the registry found, as a table, a verbose report or JSON.

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "bk/registry.h"
#include "bk/units.h"
#include "command.h"
#include "commands/devices/json.h"
#include "exit_codes.h"
#include "output/details.h"
#include "output/format.h"
#include "output/json_out.h"
#include "output/table.h"
#include "output/term.h"
#include "output/wrap.h"
#include "registry_within.h"

namespace bkctl {
namespace {

struct DevicesOptions {
  bool verbose = false;
  bool json = false;
  std::string timeout = "60s";
};

std::string caps_text(const bk::DeviceCaps& caps) {
  std::string out;
  auto add = [&out](bool present, const char* word) {
    if (!present) return;
    if (!out.empty()) out += ", ";
    out += word;
  };
  add(caps.async, "async");
  add(caps.host_buffer, "host-buf");
  add(caps.buffer_from_host_ptr, "from-ptr");
  add(caps.events, "events");
  return out.empty() ? "-" : out;
}

std::string buffer_type_text(const bk::BufferType& type) {
  // Drivers say "no limit" with SIZE_MAX or with 2^63 and its neighbours: no machine has 4 EiB.
  constexpr size_t kNoRealLimit = size_t{1} << 62;
  const std::string max_size =
      type.max_size() >= kNoRealLimit ? "unlimited" : bk::format_bytes(type.max_size());
  return fmt::format("{} (alignment {} B, max size {}, {})", type.name(), type.alignment(), max_size,
                     type.is_host() ? "host memory" : "device memory");
}

// One line per device family that found nothing, with its reason: the table alone would leave
// a missing GPU unexplained.
std::string empty_families_text(const bk::Registry& registry, const TermStyle& style) {
  std::string out;
  for (bk::BackendReg* reg : registry.regs()) {
    if (!reg->devices().empty()) continue;
    const std::string status = reg->status();
    out +=
        fmt::format("{}: no devices{}\n", reg->name(), status.empty() ? "" : " (" + printable(status) + ")");
  }
  for (const bk::PluginAttempt& attempt : registry.plugin_report()) {
    if (attempt.status != bk::PluginAttempt::Status::failed) continue;
    out += fmt::format("plugin {} failed to load: {}\n", printable(attempt.name), printable(attempt.reason));
  }
  if (out.empty()) return out;
  return "\n" + wrap_text(out + "(bkctl devices --verbose shows every plugin and backend)\n", style.width);
}

std::string devices_table(const bk::Registry& registry, const TermStyle& style) {
  Table table({{"#", Align::right},
               {"name"},
               {"type"},
               {"description", Align::left, true},
               {"memory free / total", Align::right},
               {"caps", Align::left, true}});
  const auto& devices = registry.devices();
  for (size_t i = 0; i < devices.size(); ++i) {
    const bk::Device& device = *devices[i];
    const bk::MemoryInfo memory = device.memory();
    table.add_row({std::to_string(i), device.name(), bk::device_type_name(device.type()),
                   device.description(), format_memory(memory.free, memory.total), caps_text(device.caps())});
  }
  return table.render(style);
}

std::string device_section(bk::Device& device, const TermStyle& style) {
  std::string out =
      style.paint(fmt::format("{}: {}", device.name(), device.description()), Tone::header) + "\n";
  const bk::MemoryInfo memory = device.memory();
  out += fmt::format("  reg: {}\n  type: {}{}\n", device.reg().name(), bk::device_type_name(device.type()),
                     device.is_simulated() ? " (simulated)" : "");
  const std::string stable_id = device.stable_id();
  out += fmt::format("  stable id: {}\n", stable_id.empty() ? "-" : stable_id);
  out += fmt::format("  memory: {} free of {} ({} of {} bytes)\n", bk::format_bytes(memory.free),
                     bk::format_bytes(memory.total), memory.free, memory.total);
  out += fmt::format("  caps: {}\n", caps_text(device.caps()));
  out += fmt::format("  buffer type: {}\n", buffer_type_text(device.buffer_type()));
  const bk::BufferType* host_type = device.host_buffer_type();
  out += fmt::format("  host buffer type: {}\n", host_type != nullptr ? buffer_type_text(*host_type) : "-");
  return wrap_text(out + render_details(details_or_error(device), 2), style.width, 4);
}

std::string backends_table(const bk::Registry& registry, const TermStyle& style) {
  Table table({{"backend"}, {"devices", Align::right}, {"status", Align::left, true}});
  for (bk::BackendReg* reg : registry.regs()) {
    const size_t count = reg->devices().size();
    const std::string status = reg->status();
    table.add_row({reg->name(), std::to_string(count), status.empty() ? (count > 0 ? "ok" : "-") : status});
  }
  return table.render(style);
}

std::string plugins_table(const bk::Registry& registry, const TermStyle& style) {
  Table table({{"plugin"}, {"status"}, {"path", Align::left, true}, {"reason", Align::left, true}});
  for (const bk::PluginAttempt& attempt : registry.plugin_report()) {
    const Tone tone = attempt.status == bk::PluginAttempt::Status::loaded   ? Tone::good
                      : attempt.status == bk::PluginAttempt::Status::failed ? Tone::bad
                                                                            : Tone::plain;
    table.add_row({attempt.name, TableCell(bk::plugin_status_name(attempt.status), tone),
                   attempt.path.empty() ? "-" : attempt.path, attempt.reason.empty() ? "-" : attempt.reason});
  }
  if (table.empty()) return "no plugins were looked for (this build has none)\n";
  return table.render(style);
}

std::string verbose_report(const bk::Registry& registry, const TermStyle& style) {
  std::string out = devices_table(registry, style);
  for (bk::Device* device : registry.devices()) out += "\n" + device_section(*device, style);
  out += "\n" + backends_table(registry, style);
  out += "\n" + plugins_table(registry, style);
  return out;
}

int run_devices(const DevicesOptions& options) {
  const bk::Registry& registry = registry_within(options.timeout);
  if (options.json) {
    print_json(devices_document(registry));
    return kExitOk;
  }
  const TermStyle style = term_style_for(stdout);
  const std::string text = options.verbose
                               ? verbose_report(registry, style)
                               : devices_table(registry, style) + empty_families_text(registry, style);
  std::fputs(text.c_str(), stdout);
  return kExitOk;
}

}  // namespace

Command add_devices_command(CLI::App& parent) {
  auto options = std::make_shared<DevicesOptions>();
  CLI::App* app = parent.add_subcommand("devices", "List every device: name, model, memory free/total, caps");
  app->add_flag("-v,--verbose", options->verbose,
                "Add each device's details (topology, ISA, driver) and the plugin report");
  app->add_flag("--json", options->json, "Print JSON (schema bk.devices/v1, details included)");
  app->add_option("--timeout", options->timeout, "Give up finding the devices after this long (exit 5)")
      ->type_name("DUR")
      ->capture_default_str();
  app->footer(
      "Memory is shown in GiB (2^30 bytes); --json gives exact bytes. A family that found no\n"
      "device gets a line saying why.\n"
      "\n"
      "Caps:\n"
      "  async     transfers overlap compute\n"
      "  host-buf  pinned host buffers\n"
      "  from-ptr  wraps host memory without copying\n"
      "  events    stream events\n"
      "\n"
      "Examples:\n"
      "  bkctl devices\n"
      "  bkctl devices --verbose\n"
      "  bkctl devices --json | jq '.devices[].name'\n"
      "  bkctl schema devices      # the JSON Schema of --json");
  return {app, [options] { return run_devices(*options); }};
}

}  // namespace bkctl
