// SPDX-License-Identifier: MIT
#include "devices/null/null_device.h"

#include <fmt/format.h>
#include <unistd.h>

#include "bk/tensor.h"
#include "devices/null/null_backend.h"
#include "devices/null/null_event.h"

namespace bk {
namespace {

size_t pages_in_bytes(int name) {
  const long pages = sysconf(name);
  const long page_size = sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page_size) : 0;
}

}  // namespace

NullDevice::NullDevice(BackendReg& reg, size_t index)
    : reg_(&reg), index_(index), name_(fmt::format("Null{}", index)), buffer_type_(*this) {}

std::string NullDevice::description() const { return "null accelerator (runs no ops; a template)"; }

MemoryInfo NullDevice::memory() const {
  return {pages_in_bytes(_SC_AVPHYS_PAGES), pages_in_bytes(_SC_PHYS_PAGES)};
}

DeviceCaps NullDevice::caps() const {
  DeviceCaps caps;
  caps.events = true;
  return caps;
}

// What `bkctl devices --verbose` shows beyond the fixed getters; keys nest on '.'.
void NullDevice::describe(Properties& out) const {
  out.set("index", index_);
  out.set("memory.source", "host");
  out.set("memory.alignment", buffer_type_.alignment());
}

bool NullDevice::supports_op(const Tensor& /*node*/) const { return false; }

std::string NullDevice::unsupported_reason(const Tensor& node) const {
  return fmt::format(
      "{} runs no ops (not {}): the null device kind has no kernels; it is the template in "
      "lib/devices/null",
      name_, op_name(node.op));
}

std::unique_ptr<Backend> NullDevice::init_backend() { return std::make_unique<NullBackend>(*this); }

std::unique_ptr<Event> NullDevice::create_event() { return std::make_unique<NullEvent>(*this); }

}  // namespace bk
