// SPDX-License-Identifier: MIT
// A minimal plugin for the registry tests: one reg "Fake" with one host-memory device "Fake0".
#include <cstdlib>
#include <cstring>
#include <new>

#include "bk/device.h"
#include "bk/error.h"
#include "bk/plugin_api.h"

namespace {

class FakeBuffer final : public bk::Buffer {
 public:
  FakeBuffer(bk::BufferType& type, size_t size) : Buffer(type, size), bytes_(new unsigned char[size + 1]) {}
  ~FakeBuffer() override { delete[] bytes_; }
  void* base() const override { return bytes_; }

 protected:
  void do_write(size_t off, const void* src, size_t n) override { std::memcpy(bytes_ + off, src, n); }
  void do_read(size_t off, void* dst, size_t n) const override { std::memcpy(dst, bytes_ + off, n); }
  void do_fill(size_t off, uint8_t v, size_t n) override { std::memset(bytes_ + off, v, n); }

 private:
  unsigned char* bytes_;
};

class FakeDevice;

class FakeBufferType final : public bk::BufferType {
 public:
  explicit FakeBufferType(bk::Device& device) : device_(device) {}
  std::string name() const override { return "Fake0"; }
  bk::Device& device() const override { return device_; }
  std::unique_ptr<bk::Buffer> alloc(size_t size) override {
    return std::make_unique<FakeBuffer>(*this, size);
  }
  size_t alignment() const override { return 1; }
  bool is_host() const override { return true; }

 private:
  bk::Device& device_;
};

class FakeDevice final : public bk::Device {
 public:
  explicit FakeDevice(bk::BackendReg& reg) : reg_(reg), buffer_type_(*this) {}
  std::string name() const override { return "Fake0"; }
  std::string description() const override { return "registry test device"; }
  bk::DeviceType type() const override { return bk::DeviceType::accel; }
  bk::MemoryInfo memory() const override { return {1u << 20, 2u << 20}; }
  bk::DeviceCaps caps() const override { return {}; }
  bool is_simulated() const override { return true; }
  bk::BackendReg& reg() const override { return reg_; }
  bool supports_op(const bk::Tensor&) const override { return false; }
  bool supports_buffer_type(const bk::BufferType& t) const override { return &t == &buffer_type_; }
  bk::BufferType& buffer_type() override { return buffer_type_; }
  std::unique_ptr<bk::Backend> init_backend() override {
    throw bk::Error(bk::ErrorCode::unsupported, "Fake0 has no backend");
  }

 private:
  bk::BackendReg& reg_;
  FakeBufferType buffer_type_;
};

class FakeReg final : public bk::BackendReg {
 public:
  FakeReg() : device_(*this) {}
  std::string name() const override { return "Fake"; }
  std::vector<bk::Device*> devices() override { return {&device_}; }

 private:
  FakeDevice device_;
};

bk::BackendReg& make_reg() {
  static FakeReg reg;
  return reg;
}

}  // namespace

BK_PLUGIN_ENTRY(make_reg)
