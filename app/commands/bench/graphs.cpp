// SPDX-License-Identifier: MIT
// `bkctl bench --graph`: whole model graphs through the scheduler, checked against the float64
// reference and then timed as evaluations per second.

#include "bk/op_info.h"
#include "bk/registry.h"
#include "bk/scheduler.h"
#include "bk/strings.h"
#include "commands/bench/cli.h"
#include "commands/bench/util.h"
#include "probe/graph_run.h"
#include "probe/model_graphs.h"

namespace bkctl {

void profile_splits(bk::Scheduler& sched, bk::Graph& graph, double eval_seconds,
                    const bk::TimingOptions& timing, std::vector<SplitInfo>& splits) {
  const double fit = 0.25 * timing.budget_s / eval_seconds;
  const int runs = fit < 3 ? 3 : fit > 25 ? 25 : static_cast<int>(fit);
  std::vector<std::vector<double>> copy(splits.size()), compute(splits.size());
  for (int r = 0; r < runs; ++r) {
    const std::vector<bk::SplitTime> times = sched.compute_profiled(graph);
    for (size_t s = 0; s < splits.size() && s < times.size(); ++s) {
      copy[s].push_back(times[s].copy_s);
      compute[s].push_back(times[s].compute_s);
    }
  }
  for (size_t s = 0; s < splits.size(); ++s) {
    splits[s].copy_s = bk::summarize(copy[s]).median;
    splits[s].compute_s = bk::summarize(compute[s]).median;
  }
}

std::vector<std::string> graph_device_names(const BenchArgs& args, const bk::Device& bench_device) {
  std::vector<std::string> names;
  if (args.graph_devices.empty()) {
    names.push_back(bench_device.name());
  } else {
    for (const std::string& name : bk::split(args.graph_devices, ',')) {
      if (!bk::trim(name).empty()) names.emplace_back(bk::trim(name));
    }
  }
  // The CPU last, as the scheduler requires (registry names are matched without case).
  if (names.empty() || !bk::iequals(names.back(), "CPU")) names.emplace_back("CPU");
  return names;
}

GraphBackends::GraphBackends(DeviceContext& ctx) {
  const bk::Registry& registry = bk::Registry::global();
  for (const std::string& name : graph_device_names(ctx.args, ctx.device)) {
    bk::Device* d = &registry.device(name);
    devices.push_back(d);
    if (d == &ctx.device) {
      list.push_back(&ctx.backend);
    } else {
      owned.push_back(d->init_backend());
      apply_thread_count(*owned.back(), ctx.args.threads);
      list.push_back(owned.back().get());
    }
  }
}

void add_splits(const bk::Scheduler& sched, const bk::Graph& graph, const std::vector<bk::Device*>& devices,
                BenchResult& result) {
  for (const bk::SplitReport& s : sched.report().splits) {
    SplitInfo info{devices[static_cast<size_t>(s.backend)]->name(), s.last_node - s.first_node + 1, 0};
    for (int n = s.first_node; n <= s.last_node; ++n)
      info.flops += bk::op_cost(*graph.nodes()[static_cast<size_t>(n)]).flops;
    result.splits.push_back(info);
  }
}

BenchResult run_graph_test(const BenchTest& test, DeviceContext& ctx) {
  BenchResult result = result_for(test);
  return guarded(result, [&] {
    GraphBackends scheduled(ctx);
    const std::vector<bk::Device*>& devices = scheduled.devices;
    const std::vector<bk::Backend*>& backends = scheduled.list;
    const bk::ModelParams params;  // the defaults of `bkctl sched`: small enough for every device
    bk::Graph graph = bk::build_model_graph(test.graph, params);
    bk::Scheduler sched(backends);
    const std::vector<size_t> device_of(bk::weights_in_use_order(graph).size(), 0);
    bk::WeightStore store;
    constexpr uint64_t kWeightSeed = 1;
    const auto got = bk::evaluate_graph(graph, sched, {devices, device_of, kWeightSeed, 1}, store);
    for (const bk::verify::NmseCheck& check : bk::check_graph_outputs(graph, kWeightSeed, got)) {
      if (!check.ok) {
        fail_check(result, "wrong result against the float64 reference: " + check.message);
        return;
      }
    }
    const bk::OpCost cost = bk::graph_cost(graph);
    result.flops = cost.flops;
    result.bytes = static_cast<double>(cost.bytes_read + cost.bytes_written);
    add_splits(sched, graph, devices, result);
    measure_into(
        result,
        [&] {
          const double t0 = bk::now_seconds();
          sched.compute(graph);
          sched.synchronize();
          return bk::now_seconds() - t0;
        },
        ctx.timing, [](double s) { return 1.0 / s; });
    profile_splits(sched, graph, 1.0 / result.stats.median, ctx.timing, result.splits);
  });
}

}  // namespace bkctl
