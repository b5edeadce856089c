// SPDX-License-Identifier: MIT
#include "devices/cpu/kernels/dispatch.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "bk/cpu.h"
#include "bk/error.h"
#include "cpu_graph_util.h"
#include "devices/cpu/cpu_backend.h"
#include "devices/cpu/cpu_features.h"

namespace bk {
namespace {

// Sets BK_CPU_ISA for one test and restores it after.
class ScopedIsaEnv {
 public:
  explicit ScopedIsaEnv(const char* value) {
    if (const char* old = std::getenv("BK_CPU_ISA")) old_ = old, had_ = true;
    setenv("BK_CPU_ISA", value, 1);
  }
  ~ScopedIsaEnv() {
    if (had_) {
      setenv("BK_CPU_ISA", old_.c_str(), 1);
    } else {
      unsetenv("BK_CPU_ISA");
    }
  }

 private:
  std::string old_;
  bool had_ = false;
};

TEST(CpuDispatch, NamesRoundTrip) {
  for (CpuIsa isa : {CpuIsa::portable, CpuIsa::avx2, CpuIsa::avx512, CpuIsa::amx}) {
    EXPECT_EQ(cpu_isa_from_name(cpu_isa_name(isa)), isa);
  }
  EXPECT_EQ(cpu_isa_from_name("AVX2"), CpuIsa::avx2);
  EXPECT_FALSE(cpu_isa_from_name("sse9").has_value());
}

TEST(CpuDispatch, PortableAlwaysRuns) {
  EXPECT_TRUE(cpu_isa_available(CpuIsa::portable));
  EXPECT_EQ(cpu_kernels(CpuIsa::portable).isa, CpuIsa::portable);
}

TEST(CpuDispatch, Avx2FollowsCpuid) {
  const CpuFeatures& f = cpu_features();
  if (f.arch != "x86_64") GTEST_SKIP() << "not an x86-64 build";
  EXPECT_EQ(cpu_isa_available(CpuIsa::avx2), f.avx2 && f.fma && f.f16c);
  if (cpu_isa_available(CpuIsa::avx2)) {
    EXPECT_EQ(cpu_kernels(CpuIsa::avx2).isa, CpuIsa::avx2);
  }
}

TEST(CpuDispatch, AmxFollowsCpuidAndOsPermission) {
  const CpuFeatures& f = cpu_features();
  if (f.arch != "x86_64") GTEST_SKIP() << "not an x86-64 build";
  const bool cpu_has = cpu_isa_available(CpuIsa::avx512) && f.avx512_bf16 && f.amx_tile && f.amx_bf16;
  EXPECT_EQ(cpu_isa_available(CpuIsa::amx), cpu_has && cpu_request_amx());
  if (cpu_isa_available(CpuIsa::amx)) {
    const CpuKernels& k = cpu_kernels(CpuIsa::amx);
    EXPECT_EQ(k.isa, CpuIsa::amx);
    EXPECT_NE(k.amx.compute, nullptr);
  }
  // Only the amx table has the AMX path: forcing a lower tier turns it off.
  for (CpuIsa isa : {CpuIsa::portable, CpuIsa::avx2, CpuIsa::avx512}) {
    if (cpu_isa_available(isa)) {
      EXPECT_EQ(cpu_kernels(isa).amx.compute, nullptr) << cpu_isa_name(isa);
    }
  }
}

TEST(CpuDispatch, BestTierIsAvailable) { EXPECT_TRUE(cpu_isa_available(cpu_best_isa())); }

TEST(CpuDispatch, UnavailableTierIsUnsupportedNamingWhatIsMissing) {
  for (CpuIsa isa : {CpuIsa::avx2, CpuIsa::avx512, CpuIsa::amx}) {
    if (cpu_isa_available(isa)) continue;
    try {
      cpu_kernels(isa);
      ADD_FAILURE() << cpu_isa_name(isa) << " handed out on a CPU that cannot run it";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::unsupported);
      const std::string msg = e.what();
      EXPECT_NE(msg.find(cpu_isa_name(isa)), std::string::npos) << msg;
      for (const std::string& m : cpu_isa_missing_features(isa))
        EXPECT_NE(msg.find(m), std::string::npos) << msg;
    }
  }
}

TEST(CpuDispatch, EnvForcesTheTierOfNewBackends) {
  ScopedIsaEnv env("portable");
  EXPECT_EQ(cpu_default_isa(), CpuIsa::portable);
  auto backend = test::cpu_device().init_backend();
  EXPECT_EQ(dynamic_cast<CpuBackend&>(*backend).isa(), CpuIsa::portable);
}

TEST(CpuDispatch, EmptyEnvMeansBest) {
  ScopedIsaEnv env("");
  EXPECT_EQ(cpu_default_isa(), cpu_best_isa());
}

TEST(CpuDispatch, UnknownEnvValueIsAClearError) {
  ScopedIsaEnv env("sse9");
  try {
    test::cpu_device().init_backend();
    ADD_FAILURE() << "BK_CPU_ISA=sse9 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("BK_CPU_ISA='sse9'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("portable, avx2, avx512 or amx"), std::string::npos) << msg;
  }
}

TEST(CpuDispatch, SetIsaSwitchesAndRejectsUnavailable) {
  auto backend = test::cpu_device().init_backend();
  auto& b = dynamic_cast<CpuBackend&>(*backend);
  b.set_isa(CpuIsa::portable);
  EXPECT_EQ(b.isa(), CpuIsa::portable);
  for (CpuIsa isa : {CpuIsa::avx2, CpuIsa::avx512, CpuIsa::amx}) {
    if (cpu_isa_available(isa)) {
      b.set_isa(isa);
      EXPECT_EQ(b.isa(), isa);
    } else {
      EXPECT_THROW(b.set_isa(isa), Error);
    }
  }
}

}  // namespace
}  // namespace bk
