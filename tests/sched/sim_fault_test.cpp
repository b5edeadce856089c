// SPDX-License-Identifier: MIT
// The faults a simulated device injects (fault= in BK_SIM_DEVICES), which `bkctl smoke`'s tests
// rely on to prove that its checks catch them. The hang fault is exercised end to end by
// tests/cli/test_smoke.py, where the watchdog cuts it off: here it would hang the test.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

#include "bk/error.h"
#include "bk/ops.h"
#include "devices/sim/sim_config.h"
#include "probe/device_details.h"
#include "sim_fixture.h"
#include "thrown.h"

namespace bk {
namespace {

TEST(SimFault, ParsesEveryFaultAndRejectsOthers) {
  for (SimFault f : {SimFault::none, SimFault::corrupt_byte, SimFault::wrong_results, SimFault::hang,
                     SimFault::alloc_fail}) {
    const auto configs = parse_sim_config(std::string("g:fault=") + sim_fault_name(f));
    ASSERT_EQ(configs.size(), 1u);
    EXPECT_EQ(configs[0].fault, f);
  }
  EXPECT_EQ(parse_sim_config("g")[0].fault, SimFault::none);
  const Error e = test::thrown_by([] { parse_sim_config("g:fault=melt"); }, "an unknown fault was accepted");
  EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  EXPECT_NE(std::string(e.what()).find("corrupt_byte"), std::string::npos);
  EXPECT_NE(sim_config_help().find("fault="), std::string::npos);
}

TEST(SimFault, DescribesItsFaultAndStaysLabelledSimulated) {
  test::SimDevices sims("g:fault=wrong_results");
  Device& d = sims.device("g");
  const nlohmann::json details = device_details(d);
  EXPECT_EQ(details["fault"], "wrong_results");
  EXPECT_NE(d.description().find("simulated"), std::string::npos);
}

TEST(SimFault, CorruptByteFlipsOneBitInTheMiddleOnWrite) {
  test::SimDevices sims("g:fault=corrupt_byte,mem=1MiB");
  auto buffer = sims.device("g").buffer_type().alloc(4096);
  std::vector<unsigned char> sent(4096, 0x00), back(4096, 0xFF);
  buffer->write(0, sent.data(), sent.size());
  buffer->read(0, back.data(), back.size());
  for (size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i], i == 2048 ? 0x10 : 0x00) << "byte " << i;
  // A write that does not cover the stuck byte leaves everything as written.
  buffer->write(0, sent.data(), 1024);
  buffer->read(0, back.data(), 1024);
  EXPECT_EQ(std::count(back.begin(), back.begin() + 1024, 0), 1024);
}

TEST(SimFault, WrongResultsChangeTheFirstElementOfEachComputedNode) {
  test::SimDevices sims("g:fault=wrong_results");
  Device& d = sims.device("g");
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {4, 1, 1, 1}, "a");
  Tensor& b = g.input(DType::F32, {4, 1, 1, 1}, "b");
  Tensor& sum = ops::add(g, a, b);
  Graph graph = g.build({&sum});
  auto buffer = d.buffer_type().alloc(3 * 64);
  buffer->place_tensor(a, 0);
  buffer->place_tensor(b, 64);
  buffer->place_tensor(sum, 128);
  const float av[4] = {1, 2, 3, 4}, bv[4] = {10, 20, 30, 40};
  buffer->set_tensor(a, av, 0, sizeof(av));
  buffer->set_tensor(b, bv, 0, sizeof(bv));
  sims.backend("g").compute(graph);
  sims.backend("g").synchronize();
  float got[4] = {};
  buffer->get_tensor(sum, got, 0, sizeof(got));
  EXPECT_EQ(got[0], 11.0f + 1.0f + 11.0f);  // x + 1 + |x|
  EXPECT_EQ(got[1], 22.0f);
  EXPECT_EQ(got[3], 44.0f);
}

TEST(SimFault, AllocFailRefusesEveryAllocation) {
  test::SimDevices sims("g:fault=alloc_fail,mem=1GiB");
  Device& d = sims.device("g");
  const Error e = test::thrown_by([&] { d.buffer_type().alloc(64); }, "alloc_fail allocated");
  EXPECT_EQ(e.code(), ErrorCode::out_of_memory);
  EXPECT_NE(std::string(e.what()).find("g (simulated)"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("fault=alloc_fail"), std::string::npos);
  EXPECT_EQ(d.memory().free, d.memory().total) << "nothing stays reserved";
}

}  // namespace
}  // namespace bk
