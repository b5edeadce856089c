// SPDX-License-Identifier: MIT
#include "contract_util.h"

#include <algorithm>

#include "bk/registry.h"

namespace bk::contract {

std::vector<uint8_t> pattern(size_t size, uint32_t seed) {
  std::vector<uint8_t> out(size);
  uint32_t x = seed * 2654435761u + 1;
  for (uint8_t& b : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<uint8_t>(x);
  }
  return out;
}

size_t round_up(size_t n, size_t align) { return align <= 1 ? n : (n + align - 1) / align * align; }

bool is_aligned(const void* p, size_t align) {
  return align <= 1 || reinterpret_cast<uintptr_t>(p) % align == 0;
}

Tensor bytes_tensor(size_t n, std::string name) {
  Tensor t;
  t.type = DType::F32;
  t.ne = {static_cast<int64_t>(n / 4), 1, 1, 1};
  t.nb = packed_strides(t.type, t.ne);
  t.name = std::move(name);
  return t;
}

Placed placed(BufferType& type, size_t n, const std::string& name, size_t offset, size_t slack) {
  const size_t at = round_up(offset, type.alignment());
  Placed p{nullptr, bytes_tensor(n, name)};
  p.buffer = type.alloc(at + type.alloc_size(p.tensor) + slack);
  p.buffer->place_tensor(p.tensor, at);
  return p;
}

std::vector<uint8_t> contents(const Tensor& tensor) {
  std::vector<uint8_t> out(tensor.nbytes());
  tensor.buffer->get_tensor(tensor, out.data(), 0, out.size());
  return out;
}

std::vector<uint8_t> bytes_of(const Buffer& buffer, size_t offset, size_t size) {
  std::vector<uint8_t> out(size);
  buffer.read(offset, out.data(), size);
  return out;
}

std::unique_ptr<Buffer> place_graph(BufferType& type, Graph& graph) {
  std::vector<Tensor*> owners(graph.leafs().begin(), graph.leafs().end());
  for (Tensor* n : graph.nodes()) {
    if (!n->is_view()) owners.push_back(n);
  }
  std::vector<size_t> offsets;
  size_t size = 0;
  for (const Tensor* t : owners) {
    size = round_up(size, type.alignment());
    offsets.push_back(size);
    size += type.alloc_size(*t);
  }
  auto buffer = type.alloc(size);
  for (size_t i = 0; i < owners.size(); ++i) buffer->place_tensor(*owners[i], offsets[i]);
  for (Tensor* n : graph.nodes()) {
    if (n->is_view()) Buffer::init_view(*n);
  }
  return buffer;
}

Device& cpu() { return Registry::global().device("CPU"); }

Device& other_device(const Device& device) {
  for (Device* d : Registry::global().devices()) {
    if (d != &device) return *d;
  }
  throw Error(ErrorCode::not_found, "the registry holds no device other than " + device.name());
}

}  // namespace bk::contract
