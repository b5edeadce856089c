// The float64 reference and the NMSE that the smoke conformance check compares devices with.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bk/cpu.h"
#include "bk/ops.h"
#include "probe/smoke_checks.h"
#include "probe/smoke_graph.h"

namespace bk {
namespace {

TEST(SmokeGraph, NmseIsRelativeAndNeverPassesNaN) {
  EXPECT_DOUBLE_EQ(smoke_nmse({1, 2}, {1, 2}), 0);
  EXPECT_DOUBLE_EQ(smoke_nmse({1, 3}, {1, 2}), 1.0 / 5.0);
  EXPECT_DOUBLE_EQ(smoke_nmse({0.5}, {0}), 0.25) << "plain sum for an all-zero reference";
  EXPECT_TRUE(std::isinf(smoke_nmse({std::nan("")}, {1})));
  EXPECT_TRUE(std::isinf(smoke_nmse({}, {1})));
}

TEST(SmokeGraph, ReferenceMatchesHandComputedValues) {
  GraphBuilder g;
  Tensor& w = g.input(DType::F32, {2, 2, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {2, 1, 1, 1}, "x");
  Tensor& mm = ops::mul_mat(g, w, x);
  Tensor& b = g.input(DType::F32, {1, 1, 1, 1}, "b");
  Tensor& sum = ops::add(g, mm, b);
  Tensor& norm = ops::rms_norm(g, sum, 1e-6f);
  Tensor& soft = ops::soft_max(g, norm, nullptr, 1.0f);
  Graph graph = g.build({&soft});
  SmokeInputs in = {{&w, {1, 2, 3, 4}}, {&x, {1, -1}}, {&b, {0.5}}};
  const auto values = smoke_reference(graph, in);
  EXPECT_EQ(values.at(&mm), (SmokeValues{-1, -1}));  // w rows (1,2), (3,4) dotted with (1,-1)
  EXPECT_EQ(values.at(&sum), (SmokeValues{-0.5, -0.5}));
  const double eps = static_cast<double>(1e-6f);
  for (double v : values.at(&norm)) EXPECT_NEAR(v, -0.5 / std::sqrt(0.25 + eps), 1e-15);
  EXPECT_EQ(values.at(&soft), (SmokeValues{0.5, 0.5}));  // equal inputs share the row evenly
}

TEST(SmokeGraph, RandomInputsAreRoundedToTheLeafType) {
  GraphBuilder g;
  Tensor& h = g.input(DType::F16, {64, 1, 1, 1}, "h");
  Tensor& s = ops::silu(g, ops::cast(g, h, DType::F32));
  Graph graph = g.build({&s});
  const SmokeInputs in = smoke_random_inputs(graph, 3);
  for (double v : in.at(&h)) {
    EXPECT_GE(v, -1);
    EXPECT_LE(v, 1);
    EXPECT_EQ(static_cast<double>(f16_to_f32(f32_to_f16(static_cast<float>(v)))), v);
  }
  EXPECT_EQ(smoke_random_inputs(graph, 3).at(&h), in.at(&h)) << "seeded";
}

TEST(SmokeChecks, EveryCheckPassesOrSkipsOnTheCpu) {
  Device& cpu = *cpu_reg().devices().front();
  SmokeSettings settings;
  settings.memory_bytes = size_t{1} << 20;
  settings.duration_seconds = 0.05;
  for (const SmokeCheck& check : smoke_checks()) {
    const SmokeOutcome outcome = check.run(cpu, settings);
    EXPECT_TRUE(outcome.status == SmokeStatus::pass || outcome.status == SmokeStatus::skipped)
        << check.name << ": " << outcome.message;
    EXPECT_FALSE(outcome.message.empty()) << check.name;
  }
}

}  // namespace
}  // namespace bk
