// SPDX-License-Identifier: MIT
// The burn-in's pieces: the checked matmul (probe/checked_gemm.h) passes on the CPU, reproduces
// its bits, and catches wrong results from the start or from the middle of a run (simulated
// faults); the throughput-drop rule on made-up timelines.
#include "probe/checked_gemm.h"

#include <gtest/gtest.h>

#include <chrono>

#include "bk/error.h"

#include "probe/burnin_timeline.h"
#include "sim_fixture.h"

namespace bk {
namespace {

TEST(CheckedGemm, PassesOnTheCpuAndRepeatsItsBits) {
  test::SimDevices sims("");
  Device& cpu = sims.device("CPU");
  CheckedGemm gemm(cpu, 256);
  for (int run = 0; run < 3; ++run) {
    gemm.run(sims.backend("CPU"));
    const GemmCheck check = gemm.check();
    EXPECT_TRUE(check.ok) << check.message;
    EXPECT_EQ(check.wrong_columns, 0u);
    // f32 on the CPU is far inside a tolerance that admits TF32.
    EXPECT_LT(check.worst_over_tolerance, 0.1);
  }
  EXPECT_DOUBLE_EQ(gemm.flops(), 2.0 * 256 * 256 * 256 + 4.0 * 256 * 256);
  EXPECT_EQ(CheckedGemm::bytes_for(256), (3u * 256 * 256 + 4 * 256) * 4);
}

TEST(CheckedGemm, CatchesWrongResultsAgainstFloat64) {
  test::SimDevices sims("g:fault=wrong_results");
  CheckedGemm gemm(sims.device("g"), 256);
  gemm.run(sims.backend("g"));
  const GemmCheck check = gemm.check();
  EXPECT_FALSE(check.ok);
  EXPECT_EQ(check.first_column, 0u) << "the fault changes element 0";
  EXPECT_GT(check.worst_over_tolerance, 1.0);
  EXPECT_NE(check.message.find("column 0"), std::string::npos) << check.message;
  EXPECT_NE(check.message.find("float64 says"), std::string::npos) << check.message;
}

TEST(CheckedGemm, CatchesAFaultThatBeginsMidRun) {
  // Wrong results begin 0.3 s after the stream's first compute: the first runs pass, a later
  // one fails, and nothing else is needed to tell them apart.
  test::SimDevices sims("g:fault=wrong_results,onset=0.3s");
  CheckedGemm gemm(sims.device("g"), 128);
  gemm.run(sims.backend("g"));
  ASSERT_TRUE(gemm.check().ok) << "before the onset";
  const auto start = std::chrono::steady_clock::now();
  bool caught = false;
  while (!caught && std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    gemm.run(sims.backend("g"));
    caught = !gemm.check().ok;
  }
  EXPECT_TRUE(caught) << "no wrong result within 20 s of a fault due at 0.3 s";
}

TEST(CheckedGemm, UnsupportedDevicesAreRefusedWithTheReason) {
  test::SimDevices sims("g:ops=add");
  try {
    CheckedGemm gemm(sims.device("g"), 128);
    ADD_FAILURE() << "a device without mul_mat was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("g cannot run the checked 128^3 f32 matmul"), std::string::npos)
        << e.what();
  }
}

std::vector<SmokeSample> timeline(const std::vector<double>& gflops, const std::vector<double>& cores = {}) {
  std::vector<SmokeSample> out;
  for (size_t i = 0; i < gflops.size(); ++i)
    out.push_back({static_cast<double>(i + 1), 10, gflops[i], 0, {}, i < cores.size() ? cores[i] : 2.0});
  return out;
}

TEST(ThroughputDrop, SteadyRunsDoNotDrop) {
  const auto drop = throughput_drop(timeline(std::vector<double>(20, 100.0)), 20);
  ASSERT_TRUE(drop.has_value());
  EXPECT_DOUBLE_EQ(drop->baseline_gflops, 100);
  EXPECT_DOUBLE_EQ(drop->drop, 0);
}

TEST(ThroughputDrop, ALastingSlowdownIsFoundWhereItIs) {
  // 60 s: baseline 15 s at 100, then 80 from 40 s on; stretches span 6 s.
  std::vector<double> gflops(60, 100.0);
  for (size_t i = 40; i < 60; ++i) gflops[i] = 80;
  const auto drop = throughput_drop(timeline(gflops), 60);
  ASSERT_TRUE(drop.has_value());
  EXPECT_NEAR(drop->drop, 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(drop->worst_gflops, 80);
  EXPECT_GT(drop->worst_at, 40);
}

TEST(ThroughputDrop, TheProcessCpuShareIsTakenOverTheSameStretch) {
  // Another process takes one of two cores from 40 s on: throughput and CPU share halve together.
  std::vector<double> gflops(60, 100.0), cores(60, 2.0);
  for (size_t i = 40; i < 60; ++i) {
    gflops[i] = 50;
    cores[i] = 1;
  }
  const auto drop = throughput_drop(timeline(gflops, cores), 60);
  ASSERT_TRUE(drop.has_value());
  EXPECT_DOUBLE_EQ(drop->baseline_cores, 2);
  EXPECT_DOUBLE_EQ(drop->worst_cores, 1);
  EXPECT_NEAR(drop->drop, 0.5, 1e-12);
}

TEST(ThroughputDrop, OneSlowSecondIsNotThrottling) {
  std::vector<double> gflops(60, 100.0);
  gflops[30] = 10;  // descheduled for a second
  const auto drop = throughput_drop(timeline(gflops), 60);
  ASSERT_TRUE(drop.has_value());
  EXPECT_DOUBLE_EQ(drop->drop, 0);
}

TEST(ThroughputDrop, NothingAfterTheBaselineIsNoVerdict) {
  EXPECT_FALSE(throughput_drop(timeline({100}), 1).has_value());
  EXPECT_FALSE(throughput_drop({}, 10).has_value());
}

}  // namespace
}  // namespace bk
