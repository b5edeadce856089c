// SPDX-License-Identifier: MIT
// The float64 reference evaluator (probe/verify/reference.h) against values computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bk/error.h"
#include "bk/ops.h"
#include "probe/verify/reference.h"

namespace bk::verify {
namespace {

// Results stored in f32 tensors are rounded to f32 (half an ulp: 2^-24 relative); inputs here
// are exact in f32, so that rounding is the only difference allowed from the hand value.
void expect_values(const Values& got, const Values& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], std::ldexp(std::abs(want[i]), -24)) << "element " << i;
  }
}

TEST(Reference, MulMatTwoByThree) {
  GraphBuilder g;
  // W = [[1, 2, 3], [4, 5, 6]] (M = 2, K = 3): row m of W is row m of w.
  Tensor& w = g.weight(DType::F32, {3, 2, 1, 1}, "w");
  // Two columns x_0 = (1, 0, -1), x_1 = (2, 1, 0.5) (N = 2).
  Tensor& x = g.input(DType::F32, {3, 2, 1, 1}, "x");
  Tensor& r = ops::mul_mat(g, w, x);
  Graph graph = g.build({&r});
  Reference ref(graph, {{&w, {1, 2, 3, 4, 5, 6}}, {&x, {1, 0, -1, 2, 1, 0.5}}});
  // r[m, n] = W_m . x_n: (1 - 3, 4 - 6, 2 + 2 + 1.5, 8 + 5 + 3).
  expect_values(ref.values(r), {-2, -2, 5.5, 16});
}

TEST(Reference, MulMatBroadcastsWeightBatchesByDivision) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::F32, {1, 1, 2, 1}, "w");  // B2 = 2 batches: 2 and 3
  Tensor& x = g.input(DType::F32, {1, 1, 4, 1}, "x");   // C2 = 4
  Tensor& r = ops::mul_mat(g, w, x);
  Graph graph = g.build({&r});
  Reference ref(graph, {{&w, {2, 3}}, {&x, {1, 10, 100, 1000}}});
  expect_values(ref.values(r), {2, 20, 300, 3000});  // batches 0, 1 use w0; 2, 3 use w1
}

TEST(Reference, MulMatReadsPermutedSources) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::F32, {2, 3, 1, 1}, "wt");  // stored as [M = 2, K = 3], transposed below
  Tensor& x = g.input(DType::F32, {3, 1, 1, 1}, "x");
  Tensor& r = ops::mul_mat(g, ops::transpose(g, w), x);  // transpose: [K = 3, M = 2]
  Graph graph = g.build({&r});
  // wt rows (k = 0..2) are (1, 4), (2, 5), (3, 6): the same W as above.
  Reference ref(graph, {{&w, {1, 4, 2, 5, 3, 6}}, {&x, {1, 1, 1}}});
  expect_values(ref.values(r), {6, 15});
}

TEST(Reference, SoftMaxOfKnownValues) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {3, 1, 1, 1}, "a");
  Tensor& r = ops::soft_max(g, a, nullptr, 1.0f);
  Graph graph = g.build({&r});
  Reference ref(graph, {{&a, {1, 2, 3}}});
  expect_values(ref.values(r), {0.09003057317038046, 0.24472847105479764, 0.6652409557748219});
}

TEST(Reference, SoftMaxWithScaleAndMinusInfinityMask) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {3, 1, 1, 1}, "a");
  Tensor& mask = g.input(DType::F32, {3, 2, 1, 1}, "mask");  // one more row than a needs
  Tensor& r = ops::soft_max(g, a, &mask, 2.0f);
  Graph graph = g.build({&r});
  const double inf = std::numeric_limits<double>::infinity();
  Reference ref(graph, {{&a, {1, 2, 3}}, {&mask, {0, -inf, 0, 5, 5, 5}}});
  // exp(2) / (exp(2) + exp(6)) and exp(6) / (exp(2) + exp(6)); the masked element is 0.
  expect_values(ref.values(r), {0.01798620996209156, 0.0, 0.9820137900379085});
}

TEST(Reference, RopeNormalRotatesAdjacentPairs) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {4, 1, 2, 1}, "a");  // head_dim 4, one head, two tokens
  Tensor& pos = g.input(DType::I32, {2, 1, 1, 1}, "pos");
  Tensor& r = ops::rope(g, a, pos, 4, RopeMode::normal, 10000.0f);
  Graph graph = g.build({&r});
  Reference ref(graph, {{&a, {1, 2, 3, 4, 1, 2, 3, 4}}, {&pos, {0, 1}}});
  // Token 0 at position 0 is unchanged. Token 1: pair (1, 2) turns by 1 rad, pair (3, 4) by
  // 10000^(-1/2) = 0.01 rad: (cos1 - 2 sin1, sin1 + 2 cos1, 3 cos.01 - 4 sin.01, 3 sin.01 + 4 cos.01).
  expect_values(ref.values(r),
                {1, 2, 3, 4, -1.1426396637476532, 1.922075596544176, 2.9598506679133294, 4.029799501669161});
}

TEST(Reference, RopeNeoxRotatesHalvesAndCopiesThePassThroughDims) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {6, 1, 1, 1}, "a");
  Tensor& pos = g.input(DType::I32, {1, 1, 1, 1}, "pos");
  Tensor& r = ops::rope(g, a, pos, 4, RopeMode::neox, 10000.0f);
  Graph graph = g.build({&r});
  Reference ref(graph, {{&a, {1, 2, 3, 4, 5, 6}}, {&pos, {1}}});
  // Pairs (x0, x2) = (1, 3) turn by 1 rad, (x1, x3) = (2, 4) by 0.01 rad; x4, x5 pass through.
  expect_values(ref.values(r), {1 * 0.5403023058681398 - 3 * 0.8414709848078965,
                                2 * 0.9999500004166653 - 4 * 0.009999833334166664,
                                1 * 0.8414709848078965 + 3 * 0.5403023058681398,
                                2 * 0.009999833334166664 + 4 * 0.9999500004166653, 5, 6});
}

TEST(Reference, RmsNormOfKnownRow) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {2, 2, 1, 1}, "a");
  Tensor& r = ops::rms_norm(g, a, 1e-30f);
  Graph graph = g.build({&r});
  Reference ref(graph, {{&a, {3, 4, -1, 1}}});
  // Row 0: mean square 12.5, rms 3.5355339; row 1: rms 1.
  expect_values(ref.values(r), {0.848528137423857, 1.131370849898476, -1, 1});
}

TEST(Reference, UnaryFormulas) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {2, 1, 1, 1}, "a");
  Tensor& s = ops::silu(g, a);
  Tensor& ge = ops::gelu(g, a);
  Tensor& sc = ops::scale(g, a, -0.5f);
  Graph graph = g.build({&s, &ge, &sc});
  Reference ref(graph, {{&a, {1, -2}}});
  expect_values(ref.values(s), {0.7310585786300049, -0.2384058440442351});
  expect_values(ref.values(ge), {0.8411919906082768, -0.04540230591222});  // tanh form, not erf
  expect_values(ref.values(sc), {-0.5, 1});
}

TEST(Reference, AddBroadcastsARow) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {2, 2, 1, 1}, "a");
  Tensor& b = g.input(DType::F32, {2, 1, 1, 1}, "b");
  Tensor& r = ops::add(g, a, b);
  Tensor& m = ops::mul(g, a, b);
  Graph graph = g.build({&r, &m});
  Reference ref(graph, {{&a, {1, 2, 3, 4}}, {&b, {10, 20}}});
  expect_values(ref.values(r), {11, 22, 13, 24});
  expect_values(ref.values(m), {10, 40, 30, 80});
}

TEST(Reference, ContOfTransposeReordersElements) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {3, 2, 1, 1}, "a");
  Tensor& t = ops::transpose(g, a);
  Tensor& r = ops::cont(g, t);
  Graph graph = g.build({&r});
  Reference ref(graph, {{&a, {0, 1, 2, 3, 4, 5}}});
  expect_values(ref.values(t), {0, 3, 1, 4, 2, 5});
  expect_values(ref.values(r), {0, 3, 1, 4, 2, 5});
}

TEST(Reference, CpyWritesIntoAViewOfTheDestination) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {2, 1, 1, 1}, "a");
  Tensor& cache = g.input(DType::F16, {2, 3, 1, 1}, "cache");
  Tensor& slot = ops::view(g, cache, {2, 1, 1, 1}, cache.nb, cache.nb[1]);  // row 1
  Tensor& r = ops::cpy(g, a, slot);
  Graph graph = g.build({&r});
  Reference ref(graph, {{&a, {1.0 / 3, -7}}, {&cache, {1, 2, 3, 4, 5, 6}}});
  expect_values(ref.values(r), {0.333251953125, -7});  // rounded to f16
  expect_values(ref.values(cache), {1, 2, 0.333251953125, -7, 5, 6});
}

TEST(Reference, StoredValuesAreRoundedToTheirDtype) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {1, 1, 1, 1}, "a");
  Tensor& h = ops::cast(g, a, DType::F16);
  Tensor& b = ops::cast(g, a, DType::BF16);
  Graph graph = g.build({&h, &b});
  Reference ref(graph, {{&a, {1.0 / 3}}});
  EXPECT_EQ(ref.values(a)[0], static_cast<double>(1.0f / 3));
  EXPECT_EQ(ref.values(h)[0], 0.333251953125);
  EXPECT_EQ(ref.values(b)[0], 0.333984375);
}

TEST(Reference, GetRowsGathersAndChecksIndices) {
  GraphBuilder g;
  Tensor& table = g.weight(DType::BF16, {2, 3, 1, 1}, "table");
  Tensor& ids = g.input(DType::I32, {3, 1, 1, 1}, "ids");
  Tensor& r = ops::get_rows(g, table, ids);
  Graph graph = g.build({&r});
  Reference ref(graph, {{&table, {1, 2, 3, 4, 5, 6}}, {&ids, {2, 0, 2}}});
  expect_values(ref.values(r), {5, 6, 1, 2, 5, 6});
  EXPECT_THROW(Reference(graph, {{&table, {1, 2, 3, 4, 5, 6}}, {&ids, {0, 3, 1}}}), Error);
}

TEST(Reference, MissingOrShortLeafValuesThrow) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {2, 1, 1, 1}, "a");
  Tensor& r = ops::silu(g, a);
  Graph graph = g.build({&r});
  EXPECT_THROW(Reference(graph, {}), Error);
  EXPECT_THROW(Reference(graph, {{&a, {1}}}), Error);
}

}  // namespace
}  // namespace bk::verify
