// SPDX-License-Identifier: MIT
#include "probe/model_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "bk/device.h"
#include "bk/error.h"
#include "bk/units.h"
#include "probe/graph_data.h"

namespace bk {
namespace {

// Re-planning after each placement converges in two rounds in practice (the compute buffers of
// a device that holds any layer barely depend on how many); the bound only stops a cycle.
constexpr int kFitRounds = 6;

size_t unit_count(const LlamaParams& p) { return static_cast<size_t>(p.layers) + 1; }

size_t cpu_index(std::span<Backend* const> backends) { return backends.size() - 1; }

size_t backend_of_leaf(const Tensor& leaf, const LlamaParams& p, const std::vector<int>& unit_backend,
                       std::span<Backend* const> backends) {
  const int unit = llama_layer_of(leaf, p);
  if (unit < 0) return cpu_index(backends);
  return static_cast<size_t>(unit_backend[static_cast<size_t>(unit)]);
}

bool is_kv_cache(const Tensor& leaf, const LlamaGraph& model) {
  return std::find(model.kv_cache.begin(), model.kv_cache.end(), &leaf) != model.kv_cache.end();
}

// Weights and KV cache of each unit, for fitting.
std::vector<size_t> unit_bytes(const LlamaGraph& model, const LlamaParams& p) {
  std::vector<size_t> bytes(unit_count(p), 0);
  for (const Tensor* leaf : model.graph.leafs()) {
    const int unit = llama_layer_of(*leaf, p);
    if (leaf->has_flag(kTensorWeight) && unit >= 0) bytes[static_cast<size_t>(unit)] += leaf->nbytes();
  }
  return bytes;
}

// One placement, measured: the graph is built afresh, every persistent leaf assumed on its
// unit's device, and the scheduler reserves the compute buffers.
struct Measured {
  LlamaGraph model;
  SchedReport report;
  std::vector<PlanDevice> devices;
};

Measured measure(const GgufFile& file, const LlamaParams& p, const PlanRequest& req,
                 const std::vector<int>& unit_backend, std::span<Backend* const> backends) {
  Measured m{build_llama_graph(file, p, req.shape), {}, {}};
  for (Backend* b : backends) {
    const MemoryInfo mem = b->device().memory();
    m.devices.push_back({b->device().name(), mem.free, mem.total, 0, 0, 0, {}, false});
  }
  for (size_t u = 0; u < unit_backend.size(); ++u) {
    m.devices[static_cast<size_t>(unit_backend[u])].units.push_back(static_cast<int>(u));
  }
  Scheduler sched(std::vector<Backend*>(backends.begin(), backends.end()), req.sched);
  for (const Tensor* leaf : m.model.graph.leafs()) {
    if (!leaf->has_flag(kTensorWeight)) continue;
    const size_t b = backend_of_leaf(*leaf, p, unit_backend, backends);
    sched.assume_buffer(*leaf, backends[b]->device().buffer_type());
    PlanDevice& d = m.devices[b];
    (is_kv_cache(*leaf, m.model) ? d.kv_cache : d.weights) += leaf->nbytes();
    if (llama_layer_of(*leaf, p) == kTokenEmbedding) d.token_embedding = true;
  }
  const std::vector<size_t> compute = sched.reserve(m.model.graph);
  for (size_t b = 0; b < compute.size(); ++b) m.devices[b].compute = compute[b];
  m.report = sched.report();
  return m;
}

size_t budget(const PlanDevice& d, size_t margin, size_t compute) {
  const size_t reserved = margin + compute;
  return d.free > reserved ? d.free - reserved : 0;
}

// The output layer, then the layers from the last down, fill each device in priority order
// within its budget; the CPU takes the rest.
std::vector<int> fill_from_the_top(const std::vector<size_t>& bytes, const std::vector<PlanDevice>& devices,
                                   const std::vector<size_t>& compute, size_t margin) {
  const int cpu = static_cast<int>(devices.size()) - 1;
  std::vector<int> unit_backend(bytes.size(), cpu);
  int u = static_cast<int>(bytes.size()) - 1;
  for (int d = 0; d < cpu && u >= 0; ++d) {
    const size_t room = budget(devices[static_cast<size_t>(d)], margin, compute[static_cast<size_t>(d)]);
    size_t used = 0;
    for (; u >= 0 && used + bytes[static_cast<size_t>(u)] <= room; --u) {
      used += bytes[static_cast<size_t>(u)];
      unit_backend[static_cast<size_t>(u)] = d;
    }
  }
  return unit_backend;
}

Measured fit(const GgufFile& file, const LlamaParams& p, const PlanRequest& req,
             std::span<Backend* const> backends) {
  // Measure once with everything on the CPU for the units' sizes and the devices' memory.
  std::vector<int> placement(unit_count(p), static_cast<int>(cpu_index(backends)));
  Measured m = measure(file, p, req, placement, backends);
  const std::vector<size_t> bytes = unit_bytes(m.model, p);
  std::vector<size_t> compute(backends.size(), 0);
  for (int round = 0; round < kFitRounds; ++round) {
    const std::vector<int> next = fill_from_the_top(bytes, m.devices, compute, req.margin);
    if (round > 0 && next == placement) break;
    placement = next;
    m = measure(file, p, req, placement, backends);
    bool all_within = true;
    for (size_t d = 0; d + 1 < m.devices.size(); ++d) {
      compute[d] = std::max(compute[d], m.devices[d].compute);
      all_within = all_within && m.devices[d].fits(req.margin);
    }
    if (all_within) break;
  }
  return m;
}

std::vector<int> placement_of(const Measured& m, size_t units) {
  std::vector<int> out(units, 0);
  for (size_t d = 0; d < m.devices.size(); ++d) {
    for (int u : m.devices[d].units) out[static_cast<size_t>(u)] = static_cast<int>(d);
  }
  return out;
}

Measured place(const GgufFile& file, const LlamaParams& p, const PlanRequest& req,
               std::span<Backend* const> backends) {
  if (req.fit) return fit(file, p, req, backends);
  if (req.unit_backend.size() != unit_count(p)) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("a placement names {} units for a model of {} layers and an output layer",
                            req.unit_backend.size(), p.layers));
  }
  for (int b : req.unit_backend) {
    if (b < 0 || static_cast<size_t>(b) >= backends.size())
      throw Error(ErrorCode::invalid_argument, fmt::format("a placement names backend {}", b));
  }
  return measure(file, p, req, req.unit_backend, backends);
}

bool all_within(const std::vector<PlanDevice>& devices, size_t margin) {
  return std::all_of(devices.begin(), devices.end(), [&](const PlanDevice& d) { return d.fits(margin); });
}

bool fits_with_context(const GgufFile& file, const LlamaParams& p, const PlanRequest& req,
                       std::span<Backend* const> backends, const ModelPlan& plan, int64_t ctx) {
  PlanRequest smaller = req;
  smaller.shape.ctx = ctx;
  smaller.shape.past = ctx - req.shape.tokens;
  if (!req.fit) smaller.unit_backend = plan.unit_backend;
  return all_within(place(file, p, smaller, backends).devices, plan.margin);
}

// The largest context, a multiple of 256, that fits: the KV cache and the attention's compute
// buffers shrink with it. Found by bisection over real plans (a few dozen milliseconds each).
bool advise_context(const GgufFile& file, const LlamaParams& p, const PlanRequest& req,
                    std::span<Backend* const> backends, ModelPlan& plan) {
  constexpr int64_t kStep = 256;
  // In steps of kStep: lo fits, hi (the context asked for, rounded up) does not.
  int64_t lo = (plan.shape.tokens + kStep - 1) / kStep;
  int64_t hi = (plan.shape.ctx + kStep - 1) / kStep;
  if (lo >= hi || !fits_with_context(file, p, req, backends, plan, lo * kStep)) return false;
  while (hi - lo > 1) {
    const int64_t mid = (lo + hi) / 2;
    (fits_with_context(file, p, req, backends, plan, mid * kStep) ? lo : hi) = mid;
  }
  const int64_t ctx = lo * kStep;
  const size_t kv = plan.kv_cache_bytes() / static_cast<size_t>(plan.shape.ctx) * static_cast<size_t>(ctx);
  plan.advice.push_back(
      fmt::format("--ctx {} fits (planned; the largest multiple of {} that does): its KV cache "
                  "takes {} instead of {}",
                  ctx, kStep, format_bytes(kv), format_bytes(plan.kv_cache_bytes())));
  return true;
}

void advise(const GgufFile& file, const LlamaParams& p, const PlanRequest& req,
            std::span<Backend* const> backends, ModelPlan& plan) {
  for (const PlanDevice& d : plan.devices) {
    if (d.fits(plan.margin)) continue;
    plan.advice.push_back(fmt::format(
        "{} needs {} (weights {}, KV cache {}, compute {}) plus the {} margin, and has {} free: {} short",
        d.name, format_bytes(d.needed()), format_bytes(d.weights), format_bytes(d.kv_cache),
        format_bytes(d.compute), format_bytes(plan.margin), format_bytes(d.free),
        format_bytes(d.needed() + plan.margin - d.free)));
  }
  const bool can_move = !plan.fit && plan.devices.size() > 1;
  if (can_move)
    plan.advice.push_back("--fit moves layers from a device that is short to the next, the CPU last");
  if (!advise_context(file, p, req, backends, plan) && !can_move) {
    plan.advice.push_back(
        "no smaller context fits either: add a device, free memory, or use a smaller quantization of the "
        "model");
  }
}

}  // namespace

size_t ModelPlan::kv_cache_bytes() const noexcept {
  size_t total = 0;
  for (const PlanDevice& d : devices) total += d.kv_cache;
  return total;
}

size_t ModelPlan::weight_bytes() const noexcept {
  size_t total = 0;
  for (const PlanDevice& d : devices) total += d.weights;
  return total;
}

std::vector<int> units_by_fractions(const GgufFile& file, const LlamaParams& params,
                                    std::span<const double> fractions) {
  std::vector<size_t> bytes(unit_count(params), 0);
  Tensor probe;
  for (const GgufTensor& t : file.tensors()) {
    probe.name = t.name;
    const int unit = llama_layer_of(probe, params);
    if (unit >= 0) bytes[static_cast<size_t>(unit)] += t.bytes;
  }
  std::vector<int> out;
  for (size_t b : split_bytes_by_fractions(bytes, fractions)) out.push_back(static_cast<int>(b));
  return out;
}

ModelPlan plan_model(const GgufFile& file, const PlanRequest& request, std::span<Backend* const> backends) {
  if (backends.empty()) throw Error(ErrorCode::invalid_argument, "plan_model: no backends");
  const auto start = std::chrono::steady_clock::now();
  ModelPlan plan;
  plan.params = llama_params(file);
  plan.shape = request.shape;
  plan.margin = request.margin;
  plan.fit = request.fit;
  Measured m = place(file, plan.params, request, backends);
  plan.unit_backend = placement_of(m, unit_count(plan.params));
  plan.model = std::move(m.model);
  plan.report = std::move(m.report);
  plan.devices = std::move(m.devices);
  plan.fits = all_within(plan.devices, plan.margin);
  if (!plan.fits) advise(file, plan.params, request, backends, plan);
  plan.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace bk
