// SPDX-License-Identifier: MIT
#include "devices/cpu/cpu_device.h"

#include <fmt/format.h>

#include "bk/tensor.h"
#include "devices/cpu/cgroup_memory.h"
#include "devices/cpu/cpu_backend.h"
#include "devices/cpu/cpu_features.h"
#include "devices/cpu/cpu_info.h"
#include "devices/cpu/cpu_telemetry.h"
#include "devices/cpu/cpu_topology.h"
#include "devices/cpu/kernels/op_kernels.h"

namespace bk {
namespace {

void describe_topology(const CpuTopology& topo, Properties& out) {
  out.set("topology.loaded", topo.loaded);
  out.set("topology.packages", topo.packages);
  out.set("topology.cores", topo.cores);
  out.set("topology.bound_cores", topo.bound_cores);
  out.set("topology.pus", topo.pus);
  out.set("topology.numa_nodes", topo.numa_nodes);
  for (size_t i = 0; i < topo.caches.size(); ++i) {
    const CpuCache& c = topo.caches[i];
    const std::string at = fmt::format("topology.caches.{}.", i);
    out.set(at + "name", c.name);
    out.set(at + "level", c.level);
    out.set(at + "size", c.size);
    out.set(at + "count", c.count);
  }
  if (!topo.loaded) out.set("topology.reason", topo.reason);
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

std::vector<TelemetryReading> CpuDevice::telemetry() const { return cpu_telemetry(); }

void CpuDevice::describe(Properties& out) const {
  const CpuFeatures& features = cpu_features();
  out.set("brand", cpu_brand());
  out.set("arch", features.arch);
  describe_topology(cpu_topology(), out);
  out.set_list("isa_features", features.names);
  out.set("default_threads", cpu_default_threads());
  // Where memory() got a smaller figure than the machine's: a container's or a job's limit.
  if (const auto cgroup = cgroup_memory_limit()) {
    out.set("memory.cgroup_limit", cgroup->limit);
    out.set("memory.cgroup_usage", cgroup->usage);
    out.set("memory.cgroup_source", cgroup->source);
  }
}

bool CpuDevice::supports_op(const Tensor& node) const { return cpu_op_supported(node); }

std::string CpuDevice::unsupported_reason(const Tensor& node) const {
  return cpu_op_unsupported_reason(node);
}

std::unique_ptr<Buffer> CpuDevice::buffer_from_host_ptr(void* ptr, size_t size) {
  return cpu_buffer_from_host_ptr(buffer_type_, ptr, size);
}

std::unique_ptr<Backend> CpuDevice::init_backend() { return std::make_unique<CpuBackend>(*this); }

}  // namespace bk
