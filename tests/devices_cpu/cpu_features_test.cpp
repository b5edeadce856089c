// SPDX-License-Identifier: MIT
#include "devices/cpu/cpu_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include "proc_text.h"

namespace bk {
namespace {

TEST(CpuFeatures, DependentFeaturesImplyTheirBase) {
  const CpuFeatures& f = cpu_features();
  if (f.avx2 || f.fma || f.f16c) {
    EXPECT_TRUE(f.avx);
  }
  if (f.avx) {
    EXPECT_TRUE(f.sse4_2);
  }
  for (bool sub : {f.avx512bw, f.avx512vl, f.avx512_vnni, f.avx512_bf16, f.avx512_fp16}) {
    if (sub) {
      EXPECT_TRUE(f.avx512f);
    }
  }
  if (f.avx512f) {
    EXPECT_TRUE(f.avx2);
  }
  if (f.amx_bf16 || f.amx_int8) {
    EXPECT_TRUE(f.amx_tile);
  }
}

TEST(CpuFeatures, NamesListExactlyThePresentFeaturesInTableOrder) {
  const CpuFeatures& f = cpu_features();
  std::vector<std::string> expected;
  for (std::string_view name : cpu_feature_names()) {
    if (f.has(name)) expected.emplace_back(name);
  }
  EXPECT_EQ(f.names, expected);
  EXPECT_EQ(f.has("avx2"), f.avx2);
  EXPECT_EQ(f.has("amx_int8"), f.amx_int8);
  EXPECT_FALSE(f.has("no_such_feature"));
}

TEST(CpuFeatures, FeatureNamesAreUnique) {
  const auto names = cpu_feature_names();
  const std::set<std::string_view> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
  EXPECT_GE(names.size(), 16u);
}

TEST(CpuFeatures, DetectedOnceAndStable) {
  const CpuFeatures& a = cpu_features();
  EXPECT_EQ(&a, &cpu_features());
  EXPECT_EQ(detect_cpu_features().names, a.names);
}

TEST(CpuFeatures, ArchMatchesTheBuild) {
#if defined(__x86_64__)
  EXPECT_EQ(cpu_features().arch, "x86_64");
  EXPECT_FALSE(cpu_features().neon);
#elif defined(__aarch64__)
  EXPECT_EQ(cpu_features().arch, "aarch64");
  EXPECT_TRUE(cpu_features().neon);
#endif
  EXPECT_FALSE(cpu_features().arch.empty());
}

#if defined(__x86_64__) && defined(__linux__)
// The kernel shows a flag only when the CPU has it and the kernel enabled its state, which is what
// we check too. Older kernels may not know the newest names, so for those only "kernel => us".
TEST(CpuFeatures, AgreeWithLinuxCpuinfoFlags) {
  const auto cpuinfo = test::read_proc("/proc/cpuinfo");
  if (!cpuinfo) GTEST_SKIP() << "no /proc/cpuinfo";
  const auto flag_lines = test::proc_values(*cpuinfo, "flags");
  ASSERT_FALSE(flag_lines.empty());
  std::set<std::string> flags;
  std::istringstream words(flag_lines.front());
  for (std::string w; words >> w;) flags.insert(w);

  const CpuFeatures& f = cpu_features();
  const std::set<std::string_view> classic{"sse4_2", "avx",     "avx2",     "fma",
                                           "f16c",   "avx512f", "avx512bw", "avx512vl"};
  for (std::string_view name : cpu_feature_names()) {
    if (name == "neon" || name == "sve") continue;
    const bool kernel = flags.contains(std::string(name));
    if (kernel) {
      EXPECT_TRUE(f.has(name)) << name << " is in /proc/cpuinfo but not detected";
    }
    if (classic.contains(name)) {
      EXPECT_EQ(f.has(name), kernel) << name;
    }
  }
}
#endif

TEST(CpuFeatures, AmxRequestFollowsPresence) {
  const bool granted = cpu_request_amx();
  if (!cpu_features().amx_tile) {
    EXPECT_FALSE(granted);
  } else {
    // A kernel that enabled the AMX state in XCR0 (5.16+) also grants the permission.
    EXPECT_TRUE(granted);
  }
  EXPECT_EQ(cpu_request_amx(), granted);
}

}  // namespace
}  // namespace bk
