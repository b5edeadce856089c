// SPDX-License-Identifier: MIT
#include "probe/graph_data.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_set>

#include "bk/error.h"
#include "bk/ops.h"
#include "probe/verify/quant_values.h"
#include "probe/verify/rng.h"

namespace bk {
namespace {

uint64_t seed_for(const Tensor& t, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (char c : t.name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

std::vector<double> weight_values(const Tensor& t, uint64_t seed) {
  verify::SplitMix64 rng(seed_for(t, seed));
  std::vector<double> v(static_cast<size_t>(t.nelements()));
  const bool vector = t.dims() == 1;
  const bool norm = t.name.find("norm") != std::string::npos;
  const double scale = 1.0 / std::sqrt(static_cast<double>(t.ne[0]));
  for (double& x : v) x = vector ? (norm ? 1.0 : 0.0) + 0.1 * rng.uniform(-1, 1) : rng.uniform(-1, 1) * scale;
  return v;
}

// The first node that reads `leaf`, and in which slot.
std::pair<const Tensor*, size_t> first_reader(const Graph& graph, const Tensor& leaf) {
  for (const Tensor* node : graph.nodes()) {
    for (size_t j = 0; j < kMaxSources; ++j) {
      if (node->src[j] == &leaf) return {node, j};
    }
  }
  return {nullptr, 0};
}

std::vector<double> input_values(const Graph& graph, const Tensor& t, uint64_t seed) {
  verify::SplitMix64 rng(seed_for(t, seed));
  std::vector<double> v(static_cast<size_t>(t.nelements()));
  const auto [reader, slot] = first_reader(graph, t);
  const Op op = reader != nullptr ? reader->op : Op::none;
  if (op == Op::get_rows && slot == 1) {
    const auto rows = static_cast<uint64_t>(reader->src[0]->ne[1]);
    for (double& x : v) x = static_cast<double>(rng.below(rows));
  } else if (op == Op::rope && slot == 1) {
    std::iota(v.begin(), v.end(), 0.0);
  } else if (op == Op::soft_max && slot == 1) {
    const auto cols = static_cast<size_t>(t.ne[0]);
    for (size_t i = 0; i < v.size(); ++i) {
      const size_t row = (i / cols) % static_cast<size_t>(t.ne[1]);
      v[i] = i % cols > row ? -std::numeric_limits<double>::infinity() : 0.0;
    }
  } else if (t.type == DType::I32) {
    for (double& x : v) x = static_cast<double>(rng.below(16));
  } else {
    for (double& x : v) x = rng.uniform(-1, 1);
  }
  return v;
}

}  // namespace

std::vector<Tensor*> weights_in_use_order(const Graph& graph) {
  std::vector<Tensor*> out;
  std::unordered_set<const Tensor*> seen;
  for (const Tensor* node : graph.nodes()) {
    for (Tensor* s : node->src) {
      Tensor* storage = (s != nullptr && s->view_src != nullptr) ? s->view_src : s;
      if (storage != nullptr && storage->op == Op::none && storage->has_flag(kTensorWeight) &&
          seen.insert(storage).second) {
        out.push_back(storage);
      }
    }
  }
  return out;
}

std::vector<size_t> split_bytes_by_fractions(std::span<const size_t> bytes,
                                             std::span<const double> fractions) {
  double sum = 0;
  for (double f : fractions) {
    if (!(f >= 0) || !std::isfinite(f)) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("a weight split fraction must be >= 0, got {}", f));
    }
    sum += f;
  }
  if (fractions.empty() || sum <= 0) {
    throw Error(ErrorCode::invalid_argument,
                "a weight split needs at least one fraction above 0, e.g. 0.5,0.5");
  }
  double total = 0;
  for (size_t b : bytes) total += static_cast<double>(b);
  std::vector<size_t> device_of;
  double before = 0;
  for (size_t b : bytes) {
    // Each item goes where its middle byte falls.
    const double middle = (before + static_cast<double>(b) / 2) / total * sum;
    size_t d = 0;
    for (double edge = fractions[0]; d + 1 < fractions.size() && middle >= edge; edge += fractions[++d]) {
    }
    device_of.push_back(d);
    before += static_cast<double>(b);
  }
  return device_of;
}

std::vector<size_t> split_by_fractions(std::span<Tensor* const> weights, std::span<const double> fractions) {
  std::vector<size_t> bytes;
  for (const Tensor* w : weights) bytes.push_back(w->nbytes());
  return split_bytes_by_fractions(bytes, fractions);
}

void WeightStore::allocate(std::span<Tensor* const> weights, std::span<const size_t> device_of,
                           std::span<Device* const> devices) {
  for (size_t d = 0; d < devices.size(); ++d) {
    std::vector<Tensor*> group;
    for (size_t i = 0; i < weights.size(); ++i) {
      if (device_of[i] == d) group.push_back(weights[i]);
    }
    if (!group.empty()) allocate_group(std::move(group), devices[d]->buffer_type());
  }
}

void WeightStore::allocate_group(std::vector<Tensor*> group, BufferType& type) {
  const size_t align = std::max<size_t>(type.alignment(), 1);
  auto aligned = [align](size_t n) { return (n + align - 1) / align * align; };
  size_t begin = 0;
  while (begin < group.size()) {
    size_t end = begin, size = 0;
    for (; end < group.size() &&
           (end == begin || size + aligned(type.alloc_size(*group[end])) <= type.max_size());
         ++end) {
      size += aligned(type.alloc_size(*group[end]));
    }
    std::unique_ptr<Buffer> buffer = type.alloc(size);
    buffer->set_usage(BufferUsage::weights);
    size_t offset = 0;
    for (size_t i = begin; i < end; ++i) {
      buffer->place_tensor(*group[i], offset);
      offset += aligned(type.alloc_size(*group[i]));
    }
    buffers_.push_back(std::move(buffer));
    begin = end;
  }
}

size_t WeightStore::bytes_on(const Device& device) const noexcept {
  size_t total = 0;
  for (const auto& b : buffers_) total += &b->type().device() == &device ? b->size() : 0;
  return total;
}

verify::LeafValues graph_leaf_values(const Graph& graph, uint64_t seed) {
  verify::LeafValues values;
  for (const Tensor* leaf : graph.leafs()) {
    values[leaf] =
        leaf->has_flag(kTensorInput) ? input_values(graph, *leaf, seed) : weight_values(*leaf, seed);
  }
  return values;
}

void fill_weights(const Graph& graph, uint64_t seed) {
  for (Tensor* leaf : graph.leafs()) {
    if (!leaf->has_flag(kTensorInput)) write_elements(*leaf, weight_values(*leaf, seed));
  }
}

void fill_inputs(const Graph& graph, uint64_t seed) {
  for (Tensor* leaf : graph.leafs()) {
    if (leaf->has_flag(kTensorInput)) write_elements(*leaf, input_values(graph, *leaf, seed));
  }
}

void write_elements(Tensor& t, std::span<const double> values) {
  if (t.buffer == nullptr) {
    throw Error(ErrorCode::invalid_argument, fmt::format("cannot fill '{}': it has no memory yet", t.name));
  }
  if (values.size() != static_cast<size_t>(t.nelements())) {
    throw Error(ErrorCode::invalid_argument, fmt::format("cannot fill '{}' ({} elements) with {} values",
                                                         t.name, t.nelements(), values.size()));
  }
  if (is_quantized(t.type)) {  // packed blocks, always contiguous
    const std::vector<uint8_t> blocks = verify::quantize_values(t.type, values);
    t.buffer->set_tensor(t, blocks.data(), 0, blocks.size());
    return;
  }
  const size_t esize = dtype_size(t.type);
  std::vector<uint8_t> bytes(values.size() * esize);
  for (size_t i = 0; i < values.size(); ++i) store_from_double(t.type, bytes.data() + i * esize, values[i]);
  t.buffer->set_tensor(t, bytes.data(), 0, bytes.size());
}

std::vector<double> read_elements(const Tensor& t) {
  std::vector<uint8_t> bytes(t.nbytes());
  if (t.buffer == nullptr) {
    throw Error(ErrorCode::invalid_argument, fmt::format("cannot read '{}': it has no memory", t.name));
  }
  t.buffer->get_tensor(t, bytes.data(), 0, bytes.size());
  if (is_quantized(t.type))
    return verify::dequantize_values(t.type, bytes, static_cast<size_t>(t.nelements()));
  std::vector<double> out;
  out.reserve(static_cast<size_t>(t.nelements()));
  for (int64_t i3 = 0; i3 < t.ne[3]; ++i3)
    for (int64_t i2 = 0; i2 < t.ne[2]; ++i2)
      for (int64_t i1 = 0; i1 < t.ne[1]; ++i1)
        for (int64_t i0 = 0; i0 < t.ne[0]; ++i0) {
          const size_t at = static_cast<size_t>(i0) * t.nb[0] + static_cast<size_t>(i1) * t.nb[1] +
                            static_cast<size_t>(i2) * t.nb[2] + static_cast<size_t>(i3) * t.nb[3];
          out.push_back(load_as_double(t.type, bytes.data() + at));
        }
  return out;
}

}  // namespace bk
