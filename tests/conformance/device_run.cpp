#include "device_run.h"

#include <algorithm>
#include <vector>

namespace bk::conformance {
namespace {

size_t align_up(size_t n, size_t align) { return (n + align - 1) / align * align; }

// Tensors that own memory: leafs and nodes that are not views, each once.
std::vector<Tensor*> owners(const Graph& graph) {
  std::vector<Tensor*> out(graph.leafs().begin(), graph.leafs().end());
  for (Tensor* node : graph.nodes()) {
    if (!node->is_view()) out.push_back(node);
  }
  return out;
}

}  // namespace

DeviceRun::DeviceRun(Device& device, Graph& graph) : graph_(&graph) {
  BufferType& type = device.buffer_type();
  const size_t align = std::max<size_t>(type.alignment(), 1);
  const std::vector<Tensor*> tensors = owners(graph);
  std::vector<size_t> offsets;
  size_t size = 0;
  for (const Tensor* t : tensors) {
    size = align_up(size, align);
    offsets.push_back(size);
    size += type.alloc_size(*t);
  }
  buffer_ = type.alloc(std::max(size, align));
  buffer_->set_usage(BufferUsage::compute);
  for (size_t i = 0; i < tensors.size(); ++i) buffer_->place_tensor(*tensors[i], offsets[i]);
  for (Tensor* node : graph.nodes()) {
    if (node->is_view()) Buffer::init_view(*node);
  }
  buffer_->clear(0xFF);
}

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
