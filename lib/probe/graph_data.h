#pragma once
// Data for running graphs without a model file: weights placed on devices, seeded random
// values, and the comparison of outputs. Used by `bkctl sched --run`, the scheduler tests and
// the benchmark; the values depend only on the seed and the tensor's name and shape, so two
// graphs built alike get the same numbers.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "bk/device.h"
#include "bk/graph.h"

namespace bk {

// The weights of a graph in order of first use (the order of the nodes that read them).
std::vector<Tensor*> weights_in_use_order(const Graph& graph);

// Assigns each weight of `weights` a device index so that device d gets about fractions[d] of
// the bytes, in order (llama.cpp's layer split, by bytes). Throws Error(invalid_argument) for
// an empty, negative or all-zero list of fractions.
std::vector<size_t> split_by_fractions(std::span<Tensor* const> weights, std::span<const double> fractions);

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

// Seeded values for every weight (matrices ~U(-1,1)/sqrt(K), norm weights ~1, biases ~0).
void fill_weights(const Graph& graph, uint64_t seed);
// Inputs by what reads them: get_rows indices in range, rope positions 0..n-1, soft_max masks
// causal (0 on and below the diagonal, -inf above), anything else ~U(-1,1).
void fill_inputs(const Graph& graph, uint64_t seed);

// A tensor's elements as doubles, in logical order, from any buffer.
std::vector<double> read_elements(const Tensor& tensor);
// sum((a - ref)^2) / sum(ref^2) (or the plain sum when ref is all zero); +inf for a NaN or a
// size mismatch, so that a wrong result never passes.
double normalized_error(std::span<const double> a, std::span<const double> ref);

}  // namespace bk
