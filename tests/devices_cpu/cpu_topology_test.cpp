// SPDX-License-Identifier: MIT
#include "devices/cpu/cpu_topology.h"

#include <gtest/gtest.h>

#include "proc_text.h"

namespace bk {
namespace {

TEST(CpuTopology, LoadsWithSaneCounts) {
  const CpuTopology& t = cpu_topology();
  ASSERT_TRUE(t.loaded) << t.reason;
  EXPECT_TRUE(t.reason.empty());
  EXPECT_GE(t.packages, 1);
  EXPECT_GE(t.cores, 1);
  EXPECT_GE(t.cores, t.packages);
  EXPECT_GE(t.pus, t.cores);
  EXPECT_GE(t.numa_nodes, 1);
}

TEST(CpuTopology, PusAreAtMostTheOnlineProcessors) {
  const auto cpuinfo = test::read_proc("/proc/cpuinfo");
  if (!cpuinfo) GTEST_SKIP() << "no /proc/cpuinfo";
  const auto processors = test::proc_values(*cpuinfo, "processor");
  ASSERT_FALSE(processors.empty());
  EXPECT_LE(static_cast<size_t>(cpu_topology().pus), processors.size());
}

TEST(CpuTopology, CachesAreOrderedAndSized) {
  const CpuTopology& t = cpu_topology();
  int last_level = 0;
  for (const CpuCache& c : t.caches) {
    EXPECT_GT(c.level, last_level) << c.name;
    last_level = c.level;
    EXPECT_EQ(c.name, c.level == 1 ? "L1d" : "L" + std::to_string(c.level));
    EXPECT_GT(c.size, 0u) << c.name;
    EXPECT_GE(c.count, 1) << c.name;
  }
  if (t.caches.size() >= 2) {
    EXPECT_LE(t.caches.back().count, t.caches.front().count);
  }
}

TEST(CpuTopology, CachedAcrossCalls) { EXPECT_EQ(&cpu_topology(), &cpu_topology()); }

TEST(CpuTopology, DefaultThreadsArePhysicalCoresInTheBinding) {
  const CpuTopology& t = cpu_topology();
  ASSERT_TRUE(t.loaded) << t.reason;
  EXPECT_GE(t.bound_cores, 1);
  EXPECT_LE(t.bound_cores, t.cores);
  EXPECT_EQ(cpu_default_threads(), t.bound_cores);
}

}  // namespace
}  // namespace bk
