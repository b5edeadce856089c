// SPDX-License-Identifier: MIT
#pragma once
// A small graph placed in one device's memory through the core interfaces only, to be judged
// against the float64 reference: allocation, poisoning, inputs, compute and read-back. The
// conformance suite runs every case through it, `bkctl smoke` its compute checks.
//
// Every leaf and non-view node gets its own aligned place in one buffer of
// device.buffer_type(), views point into their sources (probe/graph_buffer.h), and the whole
// buffer is filled with 0xFF bytes first: NaN in f32, f16 and bf16, so an element the device
// does not write reads back as NaN and never passes verify/nmse.h.
//
// The graph must outlive the DeviceRun, which owns the buffer. Errors are the device's
// (Error(out_of_memory), Error(device_error), ...). Not thread-safe.

#include <memory>

#include "bk/device.h"
#include "bk/graph.h"
#include "probe/verify/reference.h"

namespace bk::verify {

class DeviceRun {
 public:
  DeviceRun(Device& device, Graph& graph);
  ~DeviceRun();
  DeviceRun(const DeviceRun&) = delete;
  DeviceRun& operator=(const DeviceRun&) = delete;

  // Writes each leaf's values (logical order), converted to its dtype; every leaf of the graph
  // needs an entry (std::out_of_range otherwise).
  void write_inputs(const LeafValues& values);
  // compute() on the stream, then synchronize().
  void compute(Backend& backend);
  // Reads a tensor of the graph back through its strides, in logical order.
  Values read(const Tensor& tensor) const;

 private:
  Graph* graph_;
  std::unique_ptr<Buffer> buffer_;
};

}  // namespace bk::verify
