// SPDX-License-Identifier: MIT
#include "probe/model_run.h"

#include <fmt/format.h>

#include "bk/buffer.h"
#include "bk/device.h"
#include "bk/error.h"
#include "probe/verify/limits.h"
#include "probe/verify/reference.h"

namespace bk {
namespace {

size_t backend_of(const Tensor& leaf, const LlamaParams& p, const std::vector<int>& unit_backend,
                  size_t cpu) {
  const int unit = llama_layer_of(leaf, p);
  return unit < 0 ? cpu : static_cast<size_t>(unit_backend[static_cast<size_t>(unit)]);
}

// The file's tensor for a weight of the graph, checked to hold its bytes; nullptr for a KV cache.
const GgufTensor* stored_tensor(const GgufFile& file, const Tensor& leaf) {
  const GgufTensor* stored = file.tensor(leaf.name);
  if (stored != nullptr && stored->bytes != leaf.nbytes()) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{}: tensor '{}' holds {} bytes in the file, {} as {}", file.path(), leaf.name,
                            stored->bytes, leaf.nbytes(), dtype_name(leaf.type)));
  }
  return stored;
}

void write_input(const Graph& graph, const char* name, const std::vector<double>& values) {
  Tensor* t = graph.find(name);
  if (t != nullptr) write_elements(*t, values);
}

}  // namespace

ModelSession::ModelSession(const GgufFile& file, std::span<Backend* const> backends,
                           std::vector<int> unit_backend, int64_t ctx, CpuWeights cpu_weights)
    : file_(file),
      params_(llama_params(file)),
      backends_(backends.begin(), backends.end()),
      unit_backend_(std::move(unit_backend)),
      ctx_(ctx) {
  if (!file.has_data()) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{} holds no tensor data (a header-only file): it can be planned (bkctl sched "
                            "--model) but not computed",
                            file.path()));
  }
  if (backends_.empty() || unit_backend_.size() != static_cast<size_t>(params_.layers) + 1) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("a model session needs backends and one backend per layer and the output layer "
                            "({}), got {}",
                            params_.layers + 1, unit_backend_.size()));
  }
  if (cpu_weights == CpuWeights::mapped)
    mapped_ = std::make_unique<MappedWeights>(file, backends_.back()->device());
}

void ModelSession::load(LlamaGraph& model) {
  const size_t cpu = backends_.size() - 1;
  std::vector<Tensor*> copied;
  std::vector<const GgufTensor*> copied_from;  // nullptr: a KV cache
  std::vector<size_t> device_of;
  for (Tensor* leaf : weights_in_use_order(model.graph)) {
    persistent_[leaf->name] = leaf;
    const size_t backend = backend_of(*leaf, params_, unit_backend_, cpu);
    const GgufTensor* stored = stored_tensor(file_, *leaf);
    if (mapped_ && stored != nullptr && backend == cpu) {
      mapped_->place(*leaf, *stored);
    } else {
      copied.push_back(leaf);
      copied_from.push_back(stored);
      device_of.push_back(backend);
    }
  }
  std::vector<Device*> devices;
  for (Backend* b : backends_) devices.push_back(&b->device());
  store_.allocate(copied, device_of, devices);
  for (size_t i = 0; i < copied.size(); ++i) {
    Tensor& leaf = *copied[i];
    if (copied_from[i] == nullptr) {  // a KV cache: starts empty
      leaf.buffer->memset_tensor(leaf, 0, 0, leaf.nbytes());
    } else {
      leaf.buffer->set_tensor(leaf, file_.tensor_data(*copied_from[i]).data(), 0, copied_from[i]->bytes);
    }
  }
}

size_t ModelSession::bytes_on(const Device& device) const noexcept {
  return store_.bytes_on(device) + mapped_bytes_on(device);
}

size_t ModelSession::mapped_bytes_on(const Device& device) const noexcept {
  return mapped_ && &mapped_->buffer_type().device() == &device ? mapped_->placed_bytes() : 0;
}

void ModelSession::bind(LlamaGraph& model) const {
  for (Tensor* leaf : weights_in_use_order(model.graph)) {
    const auto it = persistent_.find(leaf->name);
    if (it == persistent_.end() || it->second->nbytes() != leaf->nbytes()) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("model graph tensor '{}' has no loaded counterpart of its size", leaf->name));
    }
    leaf->buffer = it->second->buffer;
    leaf->data = it->second->data;
  }
}

ModelSession::Prepared& ModelSession::prepare(int64_t tokens, int64_t past, bool all_logits) {
  auto prepared = std::make_unique<Prepared>();
  prepared->shape = LlamaShape{tokens, past, ctx_, DType::F16, all_logits};
  prepared->model = build_llama_graph(file_, params_, prepared->shape);
  if (persistent_.empty()) {
    load(prepared->model);
  } else {
    bind(prepared->model);
  }
  prepared->sched = std::make_unique<Scheduler>(backends_);
  prepared->sched->alloc_graph(prepared->model.graph);
  graphs_.push_back(std::move(prepared));
  return *graphs_.back();
}

void ModelSession::set_tokens(Prepared& graph, const std::vector<int32_t>& tokens) const {
  graph.inputs = llama_input_values(params_, graph.shape, tokens);
  write_input(graph.model.graph, "tokens", graph.inputs.tokens);
  write_input(graph.model.graph, "positions", graph.inputs.positions);
  write_input(graph.model.graph, "mask", graph.inputs.mask);
}

void ModelSession::compute(Prepared& graph) {
  graph.sched->compute(graph.model.graph);
  graph.sched->synchronize();
}

std::vector<double> ModelSession::logits(const Prepared& graph) {
  return read_elements(*graph.model.graph.outputs().back());
}

verify::NmseCheck ModelSession::check(const Prepared& graph) const {
  const LlamaInputs& in = graph.inputs;
  verify::LeafValues values;
  for (const Tensor* leaf : graph.model.graph.leafs()) {
    if (leaf->name == "tokens") {
      values[leaf] = in.tokens;
    } else if (leaf->name == "positions") {
      values[leaf] = in.positions;
    } else if (leaf->name == "mask") {
      values[leaf] = in.mask;
    } else {
      values[leaf] = read_elements(*leaf);
    }
  }
  const Tensor& out = *graph.model.graph.outputs().back();
  const verify::Reference reference(graph.model.graph, std::move(values), verify::Reference::Stored{});
  return verify::check_nmse(logits(graph), reference.values(out), verify::graph_limit(graph.model.graph),
                            out);
}

}  // namespace bk
