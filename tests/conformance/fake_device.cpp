// SPDX-License-Identifier: MIT
#include "fake_device.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "bk/error.h"
#include "bk/graph.h"
#include "probe/verify/quant_values.h"
#include "probe/verify/reference.h"

namespace bk::conformance::testing_only {
namespace {

class FakeBuffer final : public Buffer {
 public:
  FakeBuffer(BufferType& type, size_t size) : Buffer(type, size), bytes_(new unsigned char[size]) {}
  void* base() const override { return bytes_.get(); }

 protected:
  void do_write(size_t offset, const void* src, size_t size) override {
    std::memcpy(bytes_.get() + offset, src, size);
  }
  void do_read(size_t offset, void* dst, size_t size) const override {
    std::memcpy(dst, bytes_.get() + offset, size);
  }
  void do_fill(size_t offset, uint8_t value, size_t size) override {
    std::memset(bytes_.get() + offset, value, size);
  }

 private:
  std::unique_ptr<unsigned char[]> bytes_;
};

class FakeBufferType final : public BufferType {
 public:
  explicit FakeBufferType(Device& device) : device_(&device) {}
  std::string name() const override { return "Fake0"; }
  Device& device() const override { return *device_; }
  std::unique_ptr<Buffer> alloc(size_t size) override { return std::make_unique<FakeBuffer>(*this, size); }
  size_t alignment() const override { return 32; }
  bool is_host() const override { return true; }

 private:
  Device* device_;
};

class FakeReg final : public BackendReg {
 public:
  std::string name() const override { return "Fake"; }
  std::vector<Device*> devices() override { return {}; }
};

unsigned char* element(const Tensor& t, size_t flat) {
  auto f = static_cast<int64_t>(flat);
  size_t at = 0;
  for (size_t d = 0; d < kMaxDims; ++d) {
    at += static_cast<size_t>(f % t.ne[d]) * t.nb[d];
    f /= t.ne[d];
  }
  return static_cast<unsigned char*>(t.data) + at;
}

void apply_fault(Fault fault, verify::Values& v, bool& skip_last) {
  skip_last = fault == Fault::skip_last_element;
  if (v.empty()) return;
  if (fault == Fault::write_nan) v[0] = std::numeric_limits<double>::quiet_NaN();
  if (fault == Fault::perturb) {
    for (double& x : v) x *= 1.001;
  }
}

class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(FakeDevice& device) : device_(&device) {}
  std::string name() const override { return "Fake0"; }
  Device& device() const override { return *device_; }

  void compute(Graph& graph) override {
    if (device_->fault == Fault::throw_device_error)
      throw Error(ErrorCode::device_error, "Fake0: injected failure");
    verify::LeafValues leafs;
    for (const Tensor* leaf : graph.leafs()) {
      verify::Values& v = leafs[leaf];
      if (is_quantized(leaf->type)) {  // packed blocks
        const std::span<const uint8_t> blocks(static_cast<const uint8_t*>(leaf->data), leaf->nbytes());
        v = verify::dequantize_values(leaf->type, blocks, static_cast<size_t>(leaf->nelements()));
        continue;
      }
      for (size_t i = 0; i < static_cast<size_t>(leaf->nelements()); ++i) {
        v.push_back(load_as_double(leaf->type, element(*leaf, i)));
      }
    }
    const verify::Reference reference(graph, leafs, verify::Reference::Stored{});
    for (const Tensor* node : graph.nodes()) {
      if (op_is_view(node->op)) continue;
      verify::Values v = reference.values(*node);
      bool skip_last = false;
      if (node->has_flag(kTensorOutput)) apply_fault(device_->fault, v, skip_last);
      const size_t n = skip_last && !v.empty() ? v.size() - 1 : v.size();
      for (size_t i = 0; i < n; ++i) store_from_double(node->type, element(*node, i), v[i]);
    }
  }

 private:
  FakeDevice* device_;
};

}  // namespace

FakeDevice::FakeDevice() : buffer_type_(std::make_unique<FakeBufferType>(*this)) {}
FakeDevice::~FakeDevice() = default;

BackendReg& FakeDevice::reg() const {
  static FakeReg reg;
  return reg;
}

std::unique_ptr<Backend> FakeDevice::init_backend() { return std::make_unique<FakeBackend>(*this); }

}  // namespace bk::conformance::testing_only
