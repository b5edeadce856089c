// SPDX-License-Identifier: MIT
#include "devices/sim/sim_device.h"

#include <fmt/format.h>

#include "bk/error.h"
#include "bk/strings.h"
#include "bk/tensor.h"
#include "bk/units.h"
#include "devices/sim/sim_backend.h"

namespace bk {
namespace {

template <typename Set, typename Name>
std::vector<std::string> names_of(const Set& set, Name name) {
  std::vector<std::string> out;
  for (const auto& item : set) out.emplace_back(name(item));
  return out;
}

std::string joined(const std::vector<std::string>& items, const char* none) {
  return items.empty() ? std::string(none) : fmt::format("{}", fmt::join(items, "+"));
}

std::vector<std::string> op_names(const std::set<Op>& ops) {
  return names_of(ops, [](Op op) { return std::string(op_name(op)); });
}

}  // namespace

SimDevice::SimDevice(BackendReg& reg, SimDeviceConfig config)
    : reg_(&reg), config_(std::move(config)), buffer_type_(*this) {}

std::string SimDevice::description() const {
  if (!config_.description.empty()) return config_.description + " (simulated)";
  const bool all_ops = config_.ops.size() == static_cast<size_t>(kOpCount - 1);
  return fmt::format("simulated {} (ops {}, {})", device_type_name(config_.type),
                     all_ops ? "all" : joined(op_names(config_.ops), "none"), format_bytes(config_.memory));
}

MemoryInfo SimDevice::memory() const {
  const size_t used = used_.load();
  return {config_.memory - std::min(used, config_.memory), config_.memory};
}

DeviceCaps SimDevice::caps() const {
  DeviceCaps caps;
  caps.events = config_.events;
  caps.async = config_.async;
  return caps;
}

void SimDevice::describe(Properties& out) const {
  out.set("simulated", true);
  out.set("config", config_.text);
  out.set_list("ops", op_names(config_.ops));
  out.set_list("types", names_of(config_.types, [](DType t) { return std::string(dtype_name(t)); }));
  out.set("max_buffer", config_.max_buffer);
  out.set("async", config_.async);
  out.set_list("offload", op_names(config_.offload));
  out.set("offload_min_batch", config_.offload_min_batch);
  out.set_list("reads", config_.reads);
  out.set("fault", sim_fault_name(config_.fault));
}

bool SimDevice::supports_types(const Tensor& node) const {
  if (!config_.types.contains(node.type)) return false;
  for (const Tensor* s : node.src) {
    if (s != nullptr && !config_.types.contains(s->type)) return false;
  }
  return true;
}

bool SimDevice::supports_op(const Tensor& node) const {
  if (node.op == Op::none || op_is_view(node.op)) return true;
  return config_.ops.contains(node.op) && supports_types(node);
}

std::string SimDevice::unsupported_reason(const Tensor& node) const {
  if (supports_op(node)) return {};
  if (!config_.ops.contains(node.op)) {
    return fmt::format("{} (simulated) does not run op {}: its BK_SIM_DEVICES entry declares ops={}", name(),
                       op_name(node.op), joined(op_names(config_.ops), "none"));
  }
  return fmt::format(
      "{} (simulated) runs op {} but not with these dtypes: its BK_SIM_DEVICES entry declares types={}",
      name(), op_name(node.op),
      joined(names_of(config_.types, [](DType t) { return std::string(dtype_name(t)); }), "none"));
}

bool SimDevice::supports_buffer_type(const BufferType& type) const {
  if (&type == &buffer_type_) return true;
  for (const std::string& other : config_.reads) {
    if (iequals(other, "CPU") ? type.is_host() : iequals(type.device().name(), other)) return true;
  }
  return false;
}

bool SimDevice::offload_op(const Tensor& node) const {
  return config_.offload.contains(node.op) && node.ne[1] >= config_.offload_min_batch;
}

std::unique_ptr<Backend> SimDevice::init_backend() { return std::make_unique<SimBackend>(*this); }

std::unique_ptr<Event> SimDevice::create_event() {
  if (!config_.events) return Device::create_event();
  return std::make_unique<SimEvent>(*this);
}

void SimDevice::reserve(size_t bytes) {
  size_t used = used_.load();
  do {
    if (bytes > config_.memory - std::min(used, config_.memory)) {
      throw Error(
          ErrorCode::out_of_memory,
          fmt::format("{} (simulated): cannot allocate {} ({} bytes): {} of its {} are free; free buffers "
                      "or raise mem in BK_SIM_DEVICES",
                      name(), format_bytes(bytes), bytes, format_bytes(config_.memory - used),
                      format_bytes(config_.memory)));
    }
  } while (!used_.compare_exchange_weak(used, used + bytes));
}

void SimDevice::release(size_t bytes) noexcept { used_.fetch_sub(bytes); }

}  // namespace bk
