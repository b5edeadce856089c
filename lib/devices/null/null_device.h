// SPDX-License-Identifier: MIT
#pragma once
// A null device: an accelerator (type accel) that owns memory but runs no op. Its buffers are
// host memory (NullBuffer), its stream runs in order and finishes each call before returning
// (NullBackend), and it has events (NullEvent), so every device contract (tests/devices) applies
// to it; supports_op() is false for every node, with a reason, so conformance skips it and the
// scheduler never gives it work.
//
// Ownership and threading are those of bk/device.h: owned by its reg, queried from any thread.

#include <string>

#include "bk/device.h"
#include "devices/null/null_buffer.h"

namespace bk {

class NullDevice final : public Device {
 public:
  NullDevice(BackendReg& reg, size_t index);

  std::string name() const override { return name_; }
  std::string description() const override;
  DeviceType type() const override { return DeviceType::accel; }
  // The host's memory: that is where its buffers live.
  MemoryInfo memory() const override;
  // Events only: no host buffer type, no wrapping of caller memory, no timing events.
  DeviceCaps caps() const override;
  BackendReg& reg() const override { return *reg_; }
  void describe(Properties& out) const override;

  // False for every node, leafs and views included: the kind has no kernels.
  bool supports_op(const Tensor& node) const override;
  std::string unsupported_reason(const Tensor& node) const override;
  // Its own buffer type only (a real accelerator cannot address other devices' memory).
  bool supports_buffer_type(const BufferType& type) const override { return &type == &buffer_type_; }

  BufferType& buffer_type() override { return buffer_type_; }
  std::unique_ptr<Backend> init_backend() override;
  std::unique_ptr<Event> create_event() override;

 private:
  BackendReg* reg_;
  size_t index_;
  std::string name_;
  NullBufferType buffer_type_;
};

}  // namespace bk
