// SPDX-License-Identifier: MIT
#pragma once
// Data for running graphs without a model file: weights placed on devices, seeded random
// values, and the comparison of outputs. Used by `bkctl sched --run`, the scheduler tests and
// the benchmark; the values depend only on the seed and the tensor's name and shape (and, for
// inputs, the op that reads them), so two graphs built alike get the same numbers.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "bk/device.h"
#include "bk/graph.h"
#include "probe/verify/reference.h"

namespace bk {

// The weights of a graph in order of first use (the order of the nodes that read them).
std::vector<Tensor*> weights_in_use_order(const Graph& graph);

// Assigns each weight of `weights` a device index so that device d gets about fractions[d] of
// the bytes, in order (llama.cpp's layer split, by bytes). Throws Error(invalid_argument) for
// an empty, negative or all-zero list of fractions.
std::vector<size_t> split_by_fractions(std::span<Tensor* const> weights, std::span<const double> fractions);
// The same over items of the given sizes (a model's layers).
std::vector<size_t> split_bytes_by_fractions(std::span<const size_t> bytes,
                                             std::span<const double> fractions);

// Owns the buffers that hold a graph's weights: one buffer (or more, past the buffer type's
// max size) per device. Throws Error(out_of_memory) when a device cannot hold its weights.
class WeightStore {
 public:
  // Places weights[i] on devices[device_of[i]]'s buffer type.
  void allocate(std::span<Tensor* const> weights, std::span<const size_t> device_of,
                std::span<Device* const> devices);
  size_t bytes_on(const Device& device) const noexcept;

 private:
  void allocate_group(std::vector<Tensor*> group, BufferType& type);
  std::vector<std::unique_ptr<Buffer>> buffers_;
};

// Seeded values for every leaf, as doubles in logical order (before rounding to the leaf's
// dtype), from verify/rng.h. Weights (leafs not flagged input): matrices ~U(-1,1)/sqrt(K),
// norm weights ~1, biases ~0. Inputs by what reads them: get_rows indices in range, rope
// positions 0..n-1, soft_max masks causal (0 on and below the diagonal, -inf above), other I32
// inputs in 0..15, anything else ~U(-1,1). These are what fill_weights and fill_inputs write,
// and what the float64 reference (verify/reference.h) starts from to judge the outputs.
verify::LeafValues graph_leaf_values(const Graph& graph, uint64_t seed);

// Write graph_leaf_values() into the leafs' memory: the weights, the inputs. Every leaf must
// have memory (Error(invalid_argument) otherwise).
void fill_weights(const Graph& graph, uint64_t seed);
void fill_inputs(const Graph& graph, uint64_t seed);

// Writes values (logical order) into a packed tensor through its buffer, converted to its
// dtype. Error(invalid_argument) when it has no memory or the count is not its element count.
void write_elements(Tensor& tensor, std::span<const double> values);
// A tensor's elements as doubles, in logical order, from any buffer, through its strides.
std::vector<double> read_elements(const Tensor& tensor);

}  // namespace bk
