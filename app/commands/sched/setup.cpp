// SPDX-License-Identifier: MIT
// `bkctl sched`: from options to a session (graph, devices, weights, pins).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "bk/error.h"
#include "bk/strings.h"
#include "commands/sched/cli.h"
#include "exit_codes.h"
#include "probe/graph_data.h"
#include "probe/graph_file.h"

namespace bkctl {
namespace {

// A few of the graph's own names, for error messages: its first weight, first node and output.
std::string example_names(const bk::Graph& graph) {
  std::vector<std::string> names;
  const auto add = [&](const bk::Tensor* t) {
    const std::string quoted = "'" + t->name + "'";
    if (std::find(names.begin(), names.end(), quoted) == names.end()) names.push_back(quoted);
  };
  for (const bk::Tensor* leaf : graph.leafs()) {
    if (leaf->has_flag(bk::kTensorWeight)) {
      add(leaf);
      break;
    }
  }
  if (!graph.nodes().empty()) add(graph.nodes().front());
  if (!graph.outputs().empty()) add(graph.outputs().back());
  return fmt::format("{}", fmt::join(names, ", "));
}

constexpr int kMaxCopies = 16;

void check_args(const SchedArgs& args) {
  if (!args.graph.empty() && !args.graph_file.empty()) usage_error("give --graph or --graph-file, not both");
  if (!args.weights_on.empty() && !args.weights_split.empty())
    usage_error("give --weights-on or --weights-split, not both");
  // Each copy is a whole set of split inputs in memory; beyond a few nothing overlaps more.
  if (args.copies < 1 || args.copies > kMaxCopies)
    usage_error(fmt::format("--copies must be 1 to {}, got {}", kMaxCopies, args.copies));
}

}  // namespace

std::vector<bk::Device*> pick_devices(const std::string& list, const bk::Registry& registry) {
  std::vector<bk::Device*> devices;
  if (list.empty()) {
    for (bk::Device* d : registry.devices()) {
      if (d->name() != "CPU") devices.push_back(d);
    }
  } else {
    for (const std::string& name : bk::split(list, ',')) {
      if (bk::trim(name).empty()) usage_error(fmt::format("--devices '{}' has an empty name", list));
      devices.push_back(&registry.device(bk::trim(name)));  // not_found: the list and failed plugins
    }
  }
  bk::Device& cpu = registry.device("CPU");
  for (size_t i = 0; i < devices.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (devices[i] == devices[j]) usage_error(fmt::format("--devices names {} twice", devices[i]->name()));
    }
    if (devices[i] == &cpu && i + 1 != devices.size()) {
      usage_error("--devices: the CPU must come last (it is the fallback for every op)");
    }
  }
  if (devices.empty() || devices.back() != &cpu) devices.push_back(&cpu);
  return devices;
}

size_t device_index(const std::vector<std::unique_ptr<bk::Backend>>& backends, const std::string& name,
                    const char* option) {
  for (size_t i = 0; i < backends.size(); ++i) {
    if (bk::iequals(backends[i]->device().name(), bk::trim(name))) return i;
  }
  std::vector<std::string> names;
  for (const auto& b : backends) names.push_back(b->device().name());
  usage_error(fmt::format("{}: '{}' is not one of the scheduled devices ({}); add it to --devices", option,
                          bk::trim(name), fmt::join(names, ", ")));
}

std::vector<double> parse_fractions(const std::string& text, size_t count) {
  std::vector<double> fractions;
  for (const std::string& item : bk::split(text, ',')) {
    char* end = nullptr;
    const std::string t = bk::trim(item);
    const double f = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size())
      usage_error(fmt::format("--weights-split: '{}' is not a number", t));
    if (!std::isfinite(f) || f < 0) usage_error(fmt::format("--weights-split: '{}' is not a share >= 0", t));
    fractions.push_back(f);
  }
  const double total = std::accumulate(fractions.begin(), fractions.end(), 0.0);
  if (!std::isfinite(total) || total <= 0)
    usage_error(fmt::format("--weights-split '{}': the shares must add up to a finite number above 0", text));
  if (fractions.size() != count) {
    usage_error(
        fmt::format("--weights-split has {} fractions for {} devices; give one per device in --devices order "
                    "(the CPU last), e.g. {}",
                    fractions.size(), count, count == 2 ? "0.5,0.5" : "0.4,0.4,0.2"));
  }
  return fractions;
}

SchedSession::SchedSession(const SchedArgs& options, const bk::Registry& registry) : args(options) {
  check_args(args);
  const std::optional<bk::DType> dtype = bk::dtype_from_name(args.dtype);
  if (!dtype) usage_error(fmt::format("--dtype '{}' is not one of f32, f16, bf16", args.dtype));
  args.model.dtype = *dtype;
  if (args.graph.empty() && args.graph_file.empty()) args.graph = "transformer";
  graph = build_graph();
  for (bk::Device* d : pick_devices(args.devices, registry)) backends.push_back(d->init_backend());
  weights = bk::weights_in_use_order(graph);
  if (!args.weights_split.empty()) {
    weight_device_of = bk::split_by_fractions(weights, parse_fractions(args.weights_split, backends.size()));
  } else {
    const size_t home = args.weights_on.empty() ? backends.size() - 1
                                                : device_index(backends, args.weights_on, "--weights-on");
    weight_device_of.assign(weights.size(), home);
  }
  for (const std::string& pin : args.pins) {
    const size_t eq = pin.find('=');
    if (eq == std::string::npos || eq == 0) usage_error(fmt::format("--pin '{}' must be NAME=DEVICE", pin));
    const std::string name = pin.substr(0, eq);
    if (graph.find(name) == nullptr) {
      usage_error(
          fmt::format("--pin: the graph has no tensor named '{}' (its names include {}; --verbose lists "
                      "them all)",
                      name, example_names(graph)));
    }
    pins.emplace_back(name, device_index(backends, pin.substr(eq + 1), "--pin"));
  }
}

bk::Graph SchedSession::build_graph() const {
  if (!args.graph_file.empty()) return bk::load_graph_file(args.graph_file);
  return bk::build_model_graph(args.graph, args.model);
}

std::vector<bk::Device*> SchedSession::backend_devices() const {
  std::vector<bk::Device*> out;
  for (const auto& b : backends) out.push_back(&b->device());
  return out;
}

void SchedSession::plan_without_memory(bk::Graph& g, bk::Scheduler& sched) const {
  const std::vector<bk::Tensor*> in_use = bk::weights_in_use_order(g);
  for (size_t i = 0; i < in_use.size(); ++i) {
    sched.assume_buffer(*in_use[i], backends[weight_device_of[i]]->device().buffer_type());
  }
  sched.reserve(g);
}

std::unique_ptr<bk::Scheduler> SchedSession::make_scheduler(const bk::Graph& g) const {
  std::vector<bk::Backend*> list;
  for (const auto& b : backends) list.push_back(b.get());
  auto sched = std::make_unique<bk::Scheduler>(list, bk::SchedOptions{!args.no_offload, args.copies});
  for (const auto& [name, backend] : pins) sched->pin(*g.find(name), backend);
  return sched;
}

}  // namespace bkctl
