// SPDX-License-Identifier: MIT
#pragma once
// The memory plan of a model over devices, from its GGUF header alone (no weight is read): per
// device the weights, KV cache and compute buffers it would hold against what it has free, and
// the scheduler's placement of every node with its reasons. What `bkctl sched --model` prints.
//
// Placement is by unit: each layer (its weights and its KV cache) and the output layer
// (output_norm and output) live on one device; the token embedding stays in host memory, read
// by get_rows on the CPU, as in llama.cpp. Compute buffers are the scheduler's own sizes for the
// worst case the options allow: a batch of `tokens` after ctx - tokens cached (Scheduler::
// reserve, measure mode, nothing allocated).
//
// Fitting (fit = true), as llama.cpp's fitting does: the output layer, then the layers from the
// last down, go to the first device in priority order while its weights, KV cache and compute
// buffer stay within its free memory less the margin, then to the next device, and the rest to
// the CPU (the last backend). Compute buffers depend on the placement, so the plan is measured
// again after each placement and tightened until every device is within its budget. When even
// that does not fit, the plan says what would: the context that fits, or how much is missing.
//
// Threading: plan_model uses the backends' devices only to read memory(); call it from one
// thread. Errors: bk::Error from the graph builder (llama_model.h) and the scheduler.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "bk/scheduler.h"
#include "probe/llama_model.h"

namespace bk {

struct PlanRequest {
  LlamaShape shape;                 // tokens = the batch, past = ctx - tokens
  size_t margin = size_t{1} << 30;  // kept free on every device, as llama.cpp's --fit-target
  bool fit = false;
  // Without fit: the backend index of each unit (layers 0..n-1, then the output layer).
  std::vector<int> unit_backend;
  SchedOptions sched;
};

struct PlanDevice {
  std::string name;
  size_t free = 0, total = 0;  // as the device reports them now
  size_t weights = 0, kv_cache = 0, compute = 0;
  std::vector<int> units;  // the layers it holds (llama_output_layer() for the output layer)
  bool token_embedding = false;

  size_t needed() const noexcept { return weights + kv_cache + compute; }
  // Within its free memory less `margin`.
  bool fits(size_t margin) const noexcept { return needed() + margin <= free; }
};

struct ModelPlan {
  LlamaParams params;
  LlamaShape shape;
  size_t margin = 0;
  bool fit = false;
  LlamaGraph model;  // the graph that was planned; report points into it
  SchedReport report;
  std::vector<PlanDevice> devices;  // in backend order, the CPU last
  std::vector<int> unit_backend;    // per unit, as in PlanRequest
  bool fits = false;                // every device within its free memory less the margin
  std::vector<std::string> advice;  // what would fit, when it does not
  double seconds = 0;               // planning time, header to report

  // Bytes of the KV cache for the whole context: 2 x layers x ctx x kv_heads x head_dim x
  // element size.
  size_t kv_cache_bytes() const noexcept;
  size_t weight_bytes() const noexcept;
};

// The units by fractions of their bytes, in layer order (llama.cpp's layer split): backend d
// gets about fractions[d] of the weights. `fractions` has one entry per backend.
std::vector<int> units_by_fractions(const GgufFile& file, const LlamaParams& params,
                                    std::span<const double> fractions);

ModelPlan plan_model(const GgufFile& file, const PlanRequest& request, std::span<Backend* const> backends);

}  // namespace bk
