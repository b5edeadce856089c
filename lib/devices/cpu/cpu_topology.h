// SPDX-License-Identifier: MIT
#pragma once
// The host's processor topology, from hwloc.
//
// cpu_topology() loads hwloc on its first call only (a full topology load costs milliseconds, so
// device listing never triggers it) and caches the result for the process. It never throws and
// never aborts: when hwloc cannot load, the topology is empty and `reason` says why.
// Threading: safe to call from any thread; the first call does the work, the others wait for it.

#include <cstddef>
#include <string>
#include <vector>

namespace bk {

struct CpuCache {
  std::string name;  // "L1d", "L2", "L3"
  int level = 0;
  size_t size = 0;  // bytes of one cache of this level
  int count = 0;    // how many of them the machine has
};

struct CpuTopology {
  bool loaded = false;  // false: hwloc failed and every count below is 0
  std::string reason;   // why it did not load; empty when loaded
  int packages = 0;
  int cores = 0;  // physical cores
  // Physical cores this process may run on: those with a hardware thread in its CPU binding
  // (taskset, mpirun's --bind-to, numactl; cgroup cpusets already narrow every count). 0 when
  // the binding cannot be read.
  int bound_cores = 0;
  int pus = 0;  // hardware threads (processing units)
  int numa_nodes = 0;
  std::vector<CpuCache> caches;  // data and unified caches, L1d first; levels the machine lacks are left out
  std::string model;             // hwloc's CPUModel of the first package; empty when unknown
};

const CpuTopology& cpu_topology();

// Threads a compute backend uses by default: the physical cores the process is bound to (so ranks
// that mpirun binds to a core each do not share cores), else all physical cores, else what the
// standard library reports, else 1. Loads the topology.
int cpu_default_threads();

}  // namespace bk
