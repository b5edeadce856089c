#pragma once
// Small graphs for the smoke checks: placed in one buffer of a device, computed there, read
// back, and evaluated independently in float64 for comparison.
//
// SmokeGraphRun places every leaf and non-view node of a graph in one buffer of
// device.buffer_type() (aligned as the buffer type asks) and poisons it with 0xFF bytes (NaN in
// every float dtype), so an element the device never writes cannot pass. Inputs and outputs are
// contiguous tensors in logical order (i0 fastest). Errors are the device's bk::Error.
//
// smoke_reference() evaluates the ops the smoke graphs use (mul_mat without batches, add with a
// broadcast row, rms_norm, soft_max without a mask, silu) in float64 from the inputs as stored
// (already rounded to their dtype); other ops throw Error(unsupported). Not thread-safe.

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "bk/device.h"
#include "bk/graph.h"

namespace bk {

using SmokeValues = std::vector<double>;
using SmokeInputs = std::unordered_map<const Tensor*, SmokeValues>;

// Uniform values in [-1, 1) from `seed`, rounded to each leaf's dtype.
SmokeInputs smoke_random_inputs(const Graph& graph, uint64_t seed);

// Every node's float64 value, by tensor.
std::unordered_map<const Tensor*, SmokeValues> smoke_reference(const Graph& graph, const SmokeInputs& inputs);

// sum (got - want)^2 / sum want^2 (the plain sum when want is all zeros); +inf when got has a
// NaN or an infinity, so that it never passes a limit.
double smoke_nmse(const SmokeValues& got, const SmokeValues& want);

class SmokeGraphRun {
 public:
  SmokeGraphRun(Device& device, Graph& graph);
  ~SmokeGraphRun();
  SmokeGraphRun(const SmokeGraphRun&) = delete;
  SmokeGraphRun& operator=(const SmokeGraphRun&) = delete;

  void write_inputs(const SmokeInputs& inputs);
  // compute() and synchronize() on the stream.
  void compute(Backend& backend);
  SmokeValues read(const Tensor& tensor) const;

 private:
  Graph* graph_;
  std::unique_ptr<Buffer> buffer_;
};

}  // namespace bk
