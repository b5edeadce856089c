// SPDX-License-Identifier: MIT
// `bkctl ops`: which op x dtype each device computes, and why not where it does not.

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bk/registry.h"
#include "bk/version.h"
#include "command.h"
#include "commands/ops/matrix.h"
#include "exit_codes.h"
#include "option_checks.h"
#include "output/json_out.h"
#include "output/table.h"
#include "output/term.h"
#include "output/wrap.h"
#include "registry_within.h"

namespace bkctl {
namespace {

constexpr const char* kOpsSchema = "bk.ops/v1";

struct OpsOptions {
  std::string device;  // empty: every device
  bool json = false;
  std::string timeout = "60s";
};

std::vector<bk::Device*> selected_devices(const OpsOptions& options) {
  const bk::Registry& registry = registry_within(options.timeout);
  if (!options.device.empty()) return {&registry.device(options.device)};  // throws not_found with the list
  return registry.devices();
}

// verdicts[d][p]: device d, probe p.
using Verdicts = std::vector<std::vector<OpVerdict>>;

Verdicts evaluate(const std::vector<bk::Device*>& devices, const std::vector<OpProbe>& probes) {
  Verdicts out;
  for (const bk::Device* device : devices) {
    std::vector<OpVerdict> row;
    for (const OpProbe& p : probes) row.push_back(probe_device(*device, p));
    out.push_back(std::move(row));
  }
  return out;
}

ojson ops_document(const std::vector<bk::Device*>& devices, const std::vector<OpProbe>& probes,
                   const Verdicts& v) {
  ojson document = json_document(kOpsSchema);
  document["bkctl_version"] = bk::kVersion;
  ojson list = ojson::array();
  for (size_t d = 0; d < devices.size(); ++d) {
    ojson ops = ojson::array();
    for (size_t p = 0; p < probes.size(); ++p) {
      ojson entry{{"op", bk::op_name(probes[p].op)}, {"dtype", bk::dtype_name(probes[p].dtype)}};
      if (probes[p].op == bk::Op::cpy) entry["to"] = bk::dtype_name(probes[p].to);
      entry["supported"] = v[d][p].supported;
      entry["reason"] = string_or_null(v[d][p].reason);
      ops.push_back(std::move(entry));
    }
    list.push_back(ojson{
        {"name", devices[d]->name()}, {"description", devices[d]->description()}, {"ops", std::move(ops)}});
  }
  document["devices"] = std::move(list);
  return document;
}

// One line per device and reason: "sim0 mul, add f16: not in ops=", where an op stands alone
// when every dtype of it fails for that reason, so that one cause reads as one line.
std::string reasons_text(const bk::Device& device, const std::vector<OpProbe>& probes,
                         const std::vector<OpVerdict>& verdicts) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // reason, what it refuses
  for (size_t p = 0; p < probes.size(); ++p) {
    if (verdicts[p].supported) continue;
    const std::string op(bk::op_name(probes[p].op));
    bool whole_op = true;  // every dtype of this op refused for this reason
    for (size_t q = 0; q < probes.size(); ++q) {
      if (probes[q].op == probes[p].op && verdicts[q].reason != verdicts[p].reason) whole_op = false;
    }
    const std::string item = whole_op ? op : op + " " + probes[p].label;
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const auto& g) { return g.first == verdicts[p].reason; });
    if (group == groups.end()) group = groups.insert(groups.end(), {verdicts[p].reason, {}});
    if (std::find(group->second.begin(), group->second.end(), item) == group->second.end()) {
      group->second.push_back(item);
    }
  }
  std::string out;
  for (const auto& [reason, items] : groups) {
    out += fmt::format("  {} {}: {}\n", printable(device.name()), fmt::join(items, ", "), printable(reason));
  }
  return out;
}

// One device's cell for one op: "yes" when it runs every dtype, "no" when none, else the dtypes
// it runs ("f32 f16"), or how many of them when that list would be long (cpy's pairs).
TableCell op_cell(const std::vector<OpProbe>& probes, const std::vector<OpVerdict>& verdicts, bk::Op op) {
  std::vector<std::string> runs;
  size_t total = 0;
  for (size_t p = 0; p < probes.size(); ++p) {
    if (probes[p].op != op) continue;
    ++total;
    if (verdicts[p].supported) runs.push_back(probes[p].label);
  }
  if (runs.size() == total) return {"yes", Tone::good};
  if (runs.empty()) return {"no", Tone::bad};
  if (runs.size() > 3) return {fmt::format("{} of {}", runs.size(), total), Tone::plain};
  return {fmt::format("{}", fmt::join(runs, " ")), Tone::plain};
}

std::string human_report(const std::vector<bk::Device*>& devices, const std::vector<OpProbe>& probes,
                         const Verdicts& v, const TermStyle& style) {
  std::vector<TableColumn> columns{{"op"}};
  for (const bk::Device* d : devices) columns.push_back({d->name()});
  Table table(std::move(columns));
  std::vector<bk::Op> ops;
  for (const OpProbe& probe : probes) {
    if (std::find(ops.begin(), ops.end(), probe.op) == ops.end()) ops.push_back(probe.op);
  }
  for (bk::Op op : ops) {
    std::vector<TableCell> cells{std::string(bk::op_name(op))};
    for (size_t d = 0; d < devices.size(); ++d) cells.push_back(op_cell(probes, v[d], op));
    table.add_row(std::move(cells));
  }
  std::string reasons;
  for (size_t d = 0; d < devices.size(); ++d) reasons += reasons_text(*devices[d], probes, v[d]);
  std::string out = table.render(style) + "\n" +
                    wrap_text(
                        "yes: every dtype (f32, f16, bf16; mul_mat and get_rows also the quantized "
                        "q8_0, q4_0, q4_k, q6_k; cpy every pair); no: none; else the dtypes that run. "
                        "--json has each op x dtype.",
                        style.width) +
                    "\n";
  if (!reasons.empty()) {
    out += "\n" + style.paint("Not supported:", Tone::header) + "\n" + wrap_text(reasons, style.width, 4);
  }
  return out;
}

int run_ops(const OpsOptions& options) {
  const std::vector<bk::Device*> devices = selected_devices(options);
  const std::vector<OpProbe> probes = op_probes();
  const Verdicts verdicts = evaluate(devices, probes);
  if (options.json) {
    print_json(ops_document(devices, probes, verdicts));
    return kExitOk;
  }
  const std::string text = human_report(devices, probes, verdicts, term_style_for(stdout));
  std::fputs(text.c_str(), stdout);
  return kExitOk;
}

}  // namespace

Command add_ops_command(CLI::App& parent) {
  auto options = std::make_shared<OpsOptions>();
  CLI::App* app = parent.add_subcommand("ops", "Which op x dtype each device computes, and why not");
  app->add_option("-d,--device", options->device, "Only this device (name, case-insensitive)")
      ->check(names_a_device())
      ->type_name("DEV");
  app->add_flag("--json", options->json, "Print JSON (schema bk.ops/v1)");
  app->add_option("--timeout", options->timeout, "Give up finding the devices after this long (exit 5)")
      ->type_name("DUR")
      ->capture_default_str();
  app->footer(
      "dtype is the op's operand dtype (mul_mat: the weights, get_rows: the table; activations are f32);\n"
      "cpy rows give source->destination. Each answer is the device's own supports_op on a small\n"
      "probe node; views compute nothing and are listed for completeness.\n"
      "\n"
      "Examples:\n"
      "  bkctl ops\n"
      "  bkctl ops -d CPU --json | jq '.devices[0].ops[] | select(.supported | not)'\n"
      "  bkctl schema ops          # the JSON Schema of --json");
  return {app, [options] { return run_ops(*options); }};
}

}  // namespace bkctl
