// SPDX-License-Identifier: MIT
#pragma once
// A test double for the suite's own tests: a host-memory device whose stream computes with the
// reference evaluator, with faults to inject, ops to declare unsupported and known failures to
// declare. Only for tests/conformance; not registered anywhere.

#include <set>
#include <vector>

#include "bk/device.h"
#include "bk/tensor.h"

namespace bk::conformance::testing_only {

enum class Fault {
  none,
  skip_last_element,   // leaves the last element of every output unwritten
  write_nan,           // writes NaN into the first element of every output
  perturb,             // multiplies every output element by (1 + 1e-3)
  throw_device_error,  // compute throws Error(device_error)
};

class FakeDevice final : public Device {
 public:
  FakeDevice();
  ~FakeDevice() override;

  std::string name() const override { return "Fake0"; }
  std::string description() const override { return "reference-backed test double"; }
  DeviceType type() const override { return DeviceType::accel; }
  MemoryInfo memory() const override { return {1u << 30, 1u << 30}; }
  DeviceCaps caps() const override { return {}; }
  bool is_simulated() const override { return true; }
  BackendReg& reg() const override;

  bool supports_op(const Tensor& node) const override { return !unsupported.contains(node.op); }
  bool supports_buffer_type(const BufferType& type) const override { return &type == buffer_type_.get(); }
  std::vector<KnownFailure> known_conformance_failures() const override { return known; }
  BufferType& buffer_type() override { return *buffer_type_; }
  std::unique_ptr<Backend> init_backend() override;

  Fault fault = Fault::none;
  std::set<Op> unsupported;
  std::vector<KnownFailure> known;

 private:
  std::unique_ptr<BufferType> buffer_type_;
};

}  // namespace bk::conformance::testing_only
