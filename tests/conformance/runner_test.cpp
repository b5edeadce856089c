// SPDX-License-Identifier: MIT
// The runner's verdicts, checked on a reference-backed test double: a correct device passes
// every case, each kind of wrong result fails, declarations turn into skips, and a declared
// known failure that passes is reported as such.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bk/error.h"
#include "fake_device.h"
#include "fill.h"
#include "runner.h"

namespace bk::conformance {
namespace {

using testing_only::FakeDevice;
using testing_only::Fault;

const Case& find_case(const std::string& name) {
  for (const Case& c : all_cases()) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no case " + name);
}

Outcome run(FakeDevice& device, const std::string& name) {
  auto backend = device.init_backend();
  return run_case(device, *backend, find_case(name), 42);
}

bool mentions(const Outcome& o, const std::string& s) { return o.message.find(s) != std::string::npos; }

TEST(Runner, CorrectDevicePassesEveryCase) {
  FakeDevice device;
  auto backend = device.init_backend();
  for (const Case& c : all_cases()) {
    const Outcome o = run_case(device, *backend, c, run_seed());
    EXPECT_EQ(o.verdict, Verdict::passed) << c.name << ": " << o.message;
  }
}

TEST(Runner, UnwrittenElementFailsThroughThePoison) {
  FakeDevice device;
  device.fault = Fault::skip_last_element;
  for (const char* name :
       {"add_f32_4097x2", "mul_mat_bf16_33x7x4097", "cast_f32_f16_33x7x2", "rope_f16_neox_64x4x7"}) {
    const Outcome o = run(device, name);
    EXPECT_EQ(o.verdict, Verdict::failed) << name;
    EXPECT_TRUE(mentions(o, "unwritten")) << o.message;
    EXPECT_TRUE(mentions(o, "seed 42")) << o.message;
    EXPECT_TRUE(mentions(o, "Fake0")) << o.message;
  }
}

TEST(Runner, NanNeverPasses) {
  FakeDevice device;
  device.fault = Fault::write_nan;
  // bf16 mul_mat has the loosest limit of all.
  const Outcome o = run(device, "mul_mat_bf16_64x64x64");
  EXPECT_EQ(o.verdict, Verdict::failed);
  EXPECT_TRUE(mentions(o, "nan")) << o.message;
}

TEST(Runner, LimitsSeparateSmallFromLargeErrors) {
  FakeDevice device;
  device.fault = Fault::perturb;  // 1e-3 relative everywhere: NMSE 1e-6
  EXPECT_EQ(run(device, "mul_mat_bf16_33x7x4097").verdict, Verdict::passed);
  const Outcome strict = run(device, "silu_f32_33x7");
  EXPECT_EQ(strict.verdict, Verdict::failed);
  EXPECT_TRUE(mentions(strict, "NMSE")) << strict.message;
  EXPECT_EQ(run(device, "cont_f16_33x7_transposed").verdict, Verdict::failed);  // copies are exact
}

TEST(Runner, DeviceErrorsBecomeFailures) {
  FakeDevice device;
  device.fault = Fault::throw_device_error;
  const Outcome o = run(device, "add_f32_1");
  EXPECT_EQ(o.verdict, Verdict::failed);
  EXPECT_TRUE(mentions(o, "injected failure")) << o.message;
}

TEST(Runner, UnsupportedOpIsReportedWithTheDevicesReason) {
  FakeDevice device;
  device.unsupported = {Op::mul_mat};
  device.fault = Fault::write_nan;  // never reached: nothing runs
  const Outcome o = run(device, "mul_mat_f16_33x7x4097");
  EXPECT_EQ(o.verdict, Verdict::unsupported);
  EXPECT_TRUE(mentions(o, "op mul_mat with dtypes (f16, f32) -> f32 is not supported by Fake0")) << o.message;
  // Only the node the device lacks matters: the MLP fails on mul_mat, add cases still run.
  EXPECT_EQ(run(device, "graph_f32_mlp_64x7").verdict, Verdict::unsupported);
  device.fault = Fault::none;
  EXPECT_EQ(run(device, "add_f16_33x7x4x2_bcast_row").verdict, Verdict::passed);
}

TEST(Runner, DeclaredKnownFailureIsExpectedWhileItFails) {
  FakeDevice device;
  device.fault = Fault::perturb;
  device.known = {{"silu_f32_33x7", "fast exp is too coarse"}};
  const Outcome o = run(device, "silu_f32_33x7");
  EXPECT_EQ(o.verdict, Verdict::expected_failure);
  EXPECT_TRUE(mentions(o, "fast exp is too coarse")) << o.message;
  EXPECT_TRUE(mentions(o, "NMSE")) << o.message;
}

TEST(Runner, DeclaredKnownFailureThatPassesIsAnUnexpectedPass) {
  FakeDevice device;
  device.known = {{"silu_f32_33x7", "fast exp is too coarse"}};
  const Outcome o = run(device, "silu_f32_33x7");
  EXPECT_EQ(o.verdict, Verdict::unexpected_pass);
  EXPECT_TRUE(mentions(o, "remove it")) << o.message;
  EXPECT_EQ(run(device, "silu_f32_1").verdict, Verdict::passed);  // undeclared cases are unaffected
}

TEST(Fill, FreshNonZeroDataReproducibleFromTheSeed) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F16, {4097, 3, 1, 1}, "a");
  verify::SplitMix64 r1(7), r2(7), r3(8);
  const verify::Values v1 = fill_leaf(a, {}, r1);
  EXPECT_EQ(v1, fill_leaf(a, {}, r2));
  EXPECT_NE(v1, fill_leaf(a, {}, r3));
  size_t negative = 0;
  for (double x : v1) {
    EXPECT_GE(std::abs(x), 0.1);
    EXPECT_LT(std::abs(x), 1.0);
    negative += x < 0;
  }
  EXPECT_GT(negative, v1.size() / 3);
  EXPECT_LT(negative, 2 * v1.size() / 3);
}

TEST(Fill, IntegersAndCausalMasks) {
  GraphBuilder g;
  Tensor& ids = g.input(DType::I32, {500, 1, 1, 1}, "ids");
  Tensor& mask = g.input(DType::F32, {4, 2, 1, 1}, "mask");
  verify::SplitMix64 rng(1);
  for (double x : fill_leaf(ids, {LeafFill::Kind::integers, 3, 9}, rng)) {
    EXPECT_GE(x, 3);
    EXPECT_LT(x, 9);
    EXPECT_EQ(x, std::floor(x));
  }
  EXPECT_THROW(fill_leaf(ids, {}, rng), Error);  // an I32 leaf needs an explicit fill
  const double inf = std::numeric_limits<double>::infinity();
  // Two query rows at the end of a 4-long sequence: row 0 sees keys 0..2, row 1 all four.
  EXPECT_EQ(fill_leaf(mask, {LeafFill::Kind::causal_mask, 0, 0}, rng),
            (verify::Values{0, 0, 0, -inf, 0, 0, 0, 0}));
}

}  // namespace
}  // namespace bk::conformance
