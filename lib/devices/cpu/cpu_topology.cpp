// SPDX-License-Identifier: MIT
#include "devices/cpu/cpu_topology.h"

#include <hwloc.h>

#include <cerrno>
#include <memory>
#include <system_error>
#include <thread>

namespace bk {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const noexcept { hwloc_topology_destroy(t); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

std::string errno_text(const char* call) {
  return std::string(call) + " failed: " + std::error_code(errno, std::generic_category()).message();
}

int count_of(hwloc_topology_t t, hwloc_obj_type_t type) {
  const int n = hwloc_get_nbobjs_by_type(t, type);
  return n > 0 ? n : 0;
}

// One entry per cache level, sized by its first data (or unified) cache: the levels of one
// machine are uniform in practice, and counts carry the rest.
void add_cache(hwloc_topology_t t, hwloc_obj_type_t type, const char* name, int level, CpuTopology& out) {
  CpuCache cache{name, level, 0, 0};
  for (hwloc_obj_t obj = hwloc_get_next_obj_by_type(t, type, nullptr); obj != nullptr;
       obj = hwloc_get_next_obj_by_type(t, type, obj)) {
    if (obj->attr == nullptr || obj->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION) continue;
    if (cache.count++ == 0) cache.size = static_cast<size_t>(obj->attr->cache.size);
  }
  if (cache.count > 0) out.caches.push_back(cache);
}

// Cores with at least one hardware thread in the process's CPU binding; 0 when it is unknown.
int cores_in_binding(hwloc_topology_t t) {
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  if (bound == nullptr) return 0;
  int n = 0;
  if (hwloc_get_cpubind(t, bound, HWLOC_CPUBIND_PROCESS) == 0) {
    for (hwloc_obj_t core = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, nullptr); core != nullptr;
         core = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, core)) {
      if (hwloc_bitmap_intersects(core->cpuset, bound)) ++n;
    }
  }
  hwloc_bitmap_free(bound);
  return n;
}

std::string package_model(hwloc_topology_t t) {
  hwloc_obj_t package = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PACKAGE, nullptr);
  const char* model = package != nullptr ? hwloc_obj_get_info_by_name(package, "CPUModel") : nullptr;
  return model != nullptr ? model : "";
}

CpuTopology load_topology() {
  CpuTopology topo;
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) {
    topo.reason = errno_text("hwloc_topology_init");
    return topo;
  }
  TopologyPtr t(raw);
  if (hwloc_topology_load(t.get()) != 0) {
    topo.reason = errno_text("hwloc_topology_load");
    return topo;
  }
  topo.loaded = true;
  topo.packages = count_of(t.get(), HWLOC_OBJ_PACKAGE);
  topo.cores = count_of(t.get(), HWLOC_OBJ_CORE);
  topo.bound_cores = cores_in_binding(t.get());
  topo.pus = count_of(t.get(), HWLOC_OBJ_PU);
  topo.numa_nodes = count_of(t.get(), HWLOC_OBJ_NUMANODE);
  add_cache(t.get(), HWLOC_OBJ_L1CACHE, "L1d", 1, topo);
  add_cache(t.get(), HWLOC_OBJ_L2CACHE, "L2", 2, topo);
  add_cache(t.get(), HWLOC_OBJ_L3CACHE, "L3", 3, topo);
  topo.model = package_model(t.get());
  return topo;
}

}  // namespace

const CpuTopology& cpu_topology() {
  static const CpuTopology topology = load_topology();
  return topology;
}

int cpu_default_threads() {
  const CpuTopology& topo = cpu_topology();
  if (topo.bound_cores > 0) return topo.bound_cores;
  if (topo.cores > 0) return topo.cores;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

}  // namespace bk
