// SPDX-License-Identifier: MIT
#include "probe/verify/device_run.h"

#include "probe/graph_buffer.h"
#include "probe/graph_data.h"

namespace bk::verify {

DeviceRun::DeviceRun(Device& device, Graph& graph)
    : graph_(&graph), buffer_(place_graph_poisoned(device.buffer_type(), graph)) {}

DeviceRun::~DeviceRun() = default;

void DeviceRun::write_inputs(const LeafValues& values) {
  for (Tensor* leaf : graph_->leafs()) write_elements(*leaf, values.at(leaf));
}

void DeviceRun::compute(Backend& backend) {
  backend.compute(*graph_);
  backend.synchronize();
}

Values DeviceRun::read(const Tensor& tensor) const { return read_elements(tensor); }

}  // namespace bk::verify
