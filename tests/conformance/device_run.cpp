#include "device_run.h"

#include <vector>

#include "probe/graph_buffer.h"

namespace bk::conformance {

DeviceRun::DeviceRun(Device& device, Graph& graph)
    : graph_(&graph), buffer_(place_graph_poisoned(device.buffer_type(), graph)) {}

DeviceRun::~DeviceRun() = default;

void DeviceRun::write_inputs(const ref::LeafValues& values) {
  for (Tensor* leaf : graph_->leafs()) {
    const ref::Values& v = values.at(leaf);
    const size_t esize = dtype_size(leaf->type);
    std::vector<unsigned char> bytes(v.size() * esize);
    for (size_t i = 0; i < v.size(); ++i) store_from_double(leaf->type, bytes.data() + i * esize, v[i]);
    buffer_->set_tensor(*leaf, bytes.data(), 0, bytes.size());  // leafs are packed
  }
}

void DeviceRun::compute(Backend& backend) {
  backend.compute(*graph_);
  backend.synchronize();
}

ref::Values DeviceRun::read(const Tensor& tensor) const {
  std::vector<unsigned char> bytes(tensor.nbytes());
  buffer_->get_tensor(tensor, bytes.data(), 0, bytes.size());
  ref::Values out;
  out.reserve(static_cast<size_t>(tensor.nelements()));
  const Shape& ne = tensor.ne;
  const Strides& nb = tensor.nb;
  for (int64_t i3 = 0; i3 < ne[3]; ++i3)
    for (int64_t i2 = 0; i2 < ne[2]; ++i2)
      for (int64_t i1 = 0; i1 < ne[1]; ++i1)
        for (int64_t i0 = 0; i0 < ne[0]; ++i0) {
          const size_t at = static_cast<size_t>(i0) * nb[0] + static_cast<size_t>(i1) * nb[1] +
                            static_cast<size_t>(i2) * nb[2] + static_cast<size_t>(i3) * nb[3];
          out.push_back(load_as_double(tensor.type, bytes.data() + at));
        }
  return out;
}

}  // namespace bk::conformance
