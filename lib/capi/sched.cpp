// SPDX-License-Identifier: MIT
// The C API's scheduler report: a graph scheduled over named devices, the way `bkctl sched`
// does without --run (weights assumed on one device, memory planned, nothing computed), and its
// decision record as JSON (bk::sched_report_json, the one rendering of a SchedReport).
#include <memory>
#include <string>
#include <vector>

#include "bk/registry.h"
#include "bk/sched_report.h"
#include "bk/scheduler.h"
#include "capi/errors.h"
#include "capi/graph_build.h"
#include "capi/handles.h"

namespace bk::capi {
namespace {

Device& find_device(const char* name) { return *find_handle(name).device; }

// The devices in priority order, the CPU last (appended when missing); none named: every device.
std::vector<Device*> pick_devices(const char* const* names, size_t n) {
  std::vector<Device*> out;
  Device& cpu = Registry::global().device("CPU");
  for (size_t i = 0; i < n; ++i) {
    if (names[i] == nullptr) invalid("device_names[" + std::to_string(i) + "] is NULL");
    out.push_back(&find_device(names[i]));
  }
  if (n == 0) {
    for (Device* d : Registry::global().devices()) {
      if (d != &cpu) out.push_back(d);
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (out[i] == out[j]) invalid("device_names names " + out[i]->name() + " twice");
    }
  }
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == &cpu) invalid("device_names: the CPU must come last (it runs every op)");
  }
  if (out.empty() || out.back() != &cpu) out.push_back(&cpu);
  return out;
}

size_t weights_home(const std::vector<std::unique_ptr<Backend>>& backends, const char* weights_on) {
  if (weights_on == nullptr) return backends.size() - 1;
  const Device& wanted = find_device(weights_on);
  std::string names;
  for (size_t i = 0; i < backends.size(); ++i) {
    if (&backends[i]->device() == &wanted) return i;
    names += (i == 0 ? "" : ", ") + backends[i]->device().name();
  }
  invalid("weights_on: " + wanted.name() + " is not one of the scheduled devices (" + names + ")");
}

std::string report_json(Graph& graph, const char* const* names, size_t n, const bk_sched_options& options) {
  if (options.copies < 0)
    invalid("options.copies is " + std::to_string(options.copies) + "; give 1 or more (0: 1)");
  std::vector<std::unique_ptr<Backend>> backends;
  for (Device* d : pick_devices(names, n)) backends.push_back(d->init_backend());
  const size_t home = weights_home(backends, options.weights_on);
  std::vector<Backend*> list;
  for (const auto& b : backends) list.push_back(b.get());
  Scheduler sched(list, SchedOptions{!options.no_offload, options.copies == 0 ? 1 : options.copies});
  for (Tensor* leaf : graph.leafs()) {
    if (leaf->has_flag(kTensorWeight) && leaf->buffer == nullptr)
      sched.assume_buffer(*leaf, backends[home]->device().buffer_type());
  }
  sched.reserve(graph);
  return sched_report_json(sched.report());
}

}  // namespace
}  // namespace bk::capi

extern "C" {

BK_API bk_status bk_sched_report_json(bk_graph* graph, const char* const* device_names, size_t n_devices,
                                      const bk_sched_options* options, char** json) {
  bk::capi::reset(json);
  return bk::capi::guard("bk_sched_report_json", [&] {
    bk::capi::require(json, "json");
    bk::Graph& built = bk::capi::built_graph(bk::capi::require(graph, "graph"));
    if (n_devices > 0) bk::capi::require(device_names, "device_names");
    const bk_sched_options defaults{};
    const std::string text =
        bk::capi::report_json(built, device_names, n_devices, options ? *options : defaults);
    *json = bk::capi::copy_string(text);
  });
}

}  // extern "C"
