// SPDX-License-Identifier: MIT
#pragma once
// A GGUF model computed with its real weights: the weights on the devices by layer (as
// model_plan.h places them; read in place from the file's mapping where the device is the CPU,
// mapped_weights.h, copied onto the others), the KV cache beside them, and llama graphs of
// any batch (a prompt, one decoded token) evaluated over the same memory, each through its own
// scheduler. What `bkctl bench --model` and the model tests run.
//
// The float64 reference of a graph (reference_logits) starts from the weights as stored (read
// back from the devices, quantized blocks decoded), so it judges the devices' arithmetic, not
// the quantization.
//
// Ownership: the session owns the weight buffers and every graph it prepared; graphs stay valid
// as long as the session. Threading: one thread at a time. Errors: bk::Error from the file, the
// graph builder, the devices (out_of_memory when a device cannot hold its layers) and the
// scheduler.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "bk/scheduler.h"
#include "probe/graph_data.h"
#include "probe/llama_model.h"
#include "probe/mapped_weights.h"
#include "probe/verify/nmse.h"

namespace bk {

// Where the CPU's weights come from: the file's mapping, or memory they are copied into (as
// llama.cpp's --no-mmap), which the weights of every other device always are.
enum class CpuWeights { mapped, copied };

class ModelSession {
 public:
  // `unit_backend`: the backend of each layer and of the output layer (model_plan.h); the token
  // embedding stays on the CPU, the last backend. Every graph's KV cache holds `ctx` positions.
  // The file must outlive the session.
  ModelSession(const GgufFile& file, std::span<Backend* const> backends, std::vector<int> unit_backend,
               int64_t ctx, CpuWeights cpu_weights = CpuWeights::mapped);

  struct Prepared {
    LlamaGraph model;
    LlamaShape shape;
    std::unique_ptr<Scheduler> sched;
    LlamaInputs inputs;  // as last set
  };
  // A graph of `tokens` tokens after `past` cached, its weights and caches this session's (the
  // first call loads them from the file), allocated by its own scheduler.
  Prepared& prepare(int64_t tokens, int64_t past, bool all_logits = false);

  // Writes the graph's inputs for these token ids (one per token of the graph).
  void set_tokens(Prepared& graph, const std::vector<int32_t>& tokens) const;
  // Computes the graph with the inputs last set and waits for it.
  static void compute(Prepared& graph);
  // The logits after compute: [vocab] per row of logits, in order.
  static std::vector<double> logits(const Prepared& graph);
  // After compute: the logits against the float64 reference's for the same graph, weights,
  // caches and inputs, within the NMSE limit of the graph's types (verify/limits.h).
  verify::NmseCheck check(const Prepared& graph) const;

  const LlamaParams& params() const noexcept { return params_; }
  // What the device holds for the session's weights and caches, and the part of it that is the
  // file's mapping (read in place).
  size_t bytes_on(const Device& device) const noexcept;
  size_t mapped_bytes_on(const Device& device) const noexcept;

 private:
  void load(LlamaGraph& model);
  void bind(LlamaGraph& model) const;

  const GgufFile& file_;
  LlamaParams params_;
  std::vector<Backend*> backends_;
  std::vector<int> unit_backend_;
  int64_t ctx_;
  std::unique_ptr<MappedWeights> mapped_;  // the CPU's weights, unless copied
  WeightStore store_;
  std::unordered_map<std::string, const Tensor*> persistent_;  // by name: weights and caches
  std::vector<std::unique_ptr<Prepared>> graphs_;
};

}  // namespace bk
