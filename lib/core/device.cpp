// SPDX-License-Identifier: MIT
#include "bk/device.h"

#include <fmt/format.h>

#include "bk/error.h"
#include "bk/tensor.h"

namespace bk {
namespace {

Buffer& buffer_of(const Tensor& tensor, const char* what) {
  if (tensor.buffer == nullptr) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{}: tensor '{}' is not allocated in any buffer", what, tensor.name));
  }
  return *tensor.buffer;
}

}  // namespace

const char* device_type_name(DeviceType type) noexcept {
  switch (type) {
    case DeviceType::cpu:
      return "cpu";
    case DeviceType::gpu:
      return "gpu";
    case DeviceType::igpu:
      return "igpu";
    case DeviceType::accel:
      return "accel";
  }
  return "cpu";
}

void Device::describe(Properties& /*out*/) const {}

std::vector<TelemetryReading> Device::telemetry() const { return {}; }

std::string Device::unsupported_reason(const Tensor& node) const {
  if (supports_op(node)) return {};
  std::string sources;
  for (const Tensor* s : node.src) {
    if (s != nullptr) sources += fmt::format("{}{}", sources.empty() ? "" : ", ", dtype_name(s->type));
  }
  return fmt::format("op {} with dtypes ({}) -> {} is not supported by {}", op_name(node.op), sources,
                     dtype_name(node.type), name());
}

std::vector<KnownFailure> Device::known_conformance_failures() const { return {}; }

bool Device::offload_op(const Tensor& /*node*/) const { return false; }

bool is_batched_mul_mat(const Tensor& node) noexcept {
  return node.op == Op::mul_mat && node.src[1] != nullptr && node.src[1]->ne[1] >= kOffloadMinRows;
}

BufferType* Device::host_buffer_type() { return nullptr; }

std::unique_ptr<Buffer> Device::buffer_from_host_ptr(void* /*ptr*/, size_t size) {
  throw Error(
      ErrorCode::unsupported,
      fmt::format("{} cannot wrap host memory ({} bytes) as a buffer; allocate from its buffer type instead",
                  name(), size));
}

std::unique_ptr<Event> Device::create_event() {
  throw Error(ErrorCode::unsupported, fmt::format("{} does not support events", name()));
}

std::unique_ptr<Event> Device::create_timing_event() {
  throw Error(ErrorCode::unsupported,
              fmt::format("{} has no timing events; time it on the host after synchronize()", name()));
}

double Event::seconds_since(const Event& /*start*/) const {
  throw Error(
      ErrorCode::unsupported,
      fmt::format("this event of {} was made without timing; use create_timing_event()", device().name()));
}

void Backend::set_tensor_async(Tensor& tensor, const void* src, size_t offset, size_t size) {
  buffer_of(tensor, "set_tensor_async").set_tensor(tensor, src, offset, size);
}

void Backend::get_tensor_async(const Tensor& tensor, void* dst, size_t offset, size_t size) {
  buffer_of(tensor, "get_tensor_async").get_tensor(tensor, dst, offset, size);
}

bool Backend::copy_tensor_async(Backend& /*src_backend*/, const Tensor& /*src*/, Tensor& /*dst*/) {
  return false;
}

void Backend::synchronize() {}

void Backend::wait(Event& event) { event.synchronize(); }

double Backend::run_peak_kernel(DType type, double /*flops*/) {
  throw Error(ErrorCode::unsupported,
              device().name() + " has no peak-arithmetic kernel for " + std::string(dtype_name(type)));
}

void* BackendReg::proc_address(const std::string& /*name*/) { return nullptr; }

}  // namespace bk
