#pragma once
// One case's graph placed in a device's memory, through the core interfaces only: allocation,
// poisoning, inputs, compute and read-back.

#include <memory>

#include "bk/device.h"
#include "bk/graph.h"
#include "reference.h"

namespace bk::conformance {

class DeviceRun {
 public:
  // Places every tensor of graph in one buffer of device.buffer_type(), each at an offset
  // aligned to the buffer type's alignment (views through Buffer::init_view), then fills the
  // whole buffer with 0xFF bytes: NaN in f32, f16 and bf16, so an element a device does not
  // write reads back as NaN. Throws what the device throws (Error(out_of_memory), ...).
  DeviceRun(Device& device, Graph& graph);
  ~DeviceRun();
  DeviceRun(const DeviceRun&) = delete;
  DeviceRun& operator=(const DeviceRun&) = delete;

  // Writes each leaf's values (logical order), converted to its dtype.
  void write_inputs(const ref::LeafValues& values);
  void compute(Backend& backend);
  // Reads a tensor back through its strides, in logical order.
  ref::Values read(const Tensor& tensor) const;

 private:
  Graph* graph_;
  std::unique_ptr<Buffer> buffer_;
};

}  // namespace bk::conformance
