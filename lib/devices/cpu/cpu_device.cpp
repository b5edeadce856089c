#include "devices/cpu/cpu_device.h"

#include <nlohmann/json.hpp>

#include "core/tensor.h"
#include "devices/cpu/cpu_backend.h"
#include "devices/cpu/cpu_features.h"
#include "devices/cpu/cpu_info.h"
#include "devices/cpu/cpu_topology.h"
#include "devices/cpu/kernels/op_kernels.h"

namespace bk {
namespace {

nlohmann::json topology_json(const CpuTopology& topo) {
  nlohmann::json caches = nlohmann::json::array();
  for (const CpuCache& c : topo.caches) {
    caches.push_back({{"name", c.name}, {"level", c.level}, {"size", c.size}, {"count", c.count}});
  }
  nlohmann::json out = {{"loaded", topo.loaded}, {"packages", topo.packages},     {"cores", topo.cores},
                        {"pus", topo.pus},       {"numa_nodes", topo.numa_nodes}, {"caches", caches}};
  if (!topo.loaded) out["reason"] = topo.reason;
  return out;
}

}  // namespace

std::string CpuDevice::description() const { return cpu_brand(); }

MemoryInfo CpuDevice::memory() const { return cpu_memory(); }

DeviceCaps CpuDevice::caps() const {
  DeviceCaps caps;
  caps.async = false;
  caps.host_buffer = false;
  caps.buffer_from_host_ptr = true;
  caps.events = false;
  return caps;
}

void CpuDevice::describe(nlohmann::json& out) const {
  const CpuFeatures& features = cpu_features();
  out["brand"] = cpu_brand();
  out["arch"] = features.arch;
  out["topology"] = topology_json(cpu_topology());
  out["isa_features"] = features.names;
  out["default_threads"] = cpu_default_threads();
}

bool CpuDevice::supports_op(const Tensor& node) const { return cpu_op_unsupported_reason(node).empty(); }

std::string CpuDevice::unsupported_reason(const Tensor& node) const {
  return cpu_op_unsupported_reason(node);
}

std::unique_ptr<Buffer> CpuDevice::buffer_from_host_ptr(void* ptr, size_t size) {
  return cpu_buffer_from_host_ptr(buffer_type_, ptr, size);
}

std::unique_ptr<Backend> CpuDevice::init_backend() { return std::make_unique<CpuBackend>(*this); }

}  // namespace bk
