// SPDX-License-Identifier: MIT
// The table of limits (probe/verify/limits.h): each node's limit comes from its op and dtypes,
// and a graph's adds up along its deepest chain of computing stages.
#include <gtest/gtest.h>

#include "bk/ops.h"
#include "probe/verify/limits.h"

namespace bk::verify {
namespace {

TEST(Limits, ANodeTakesTheLimitOfItsOpAndDtypes) {
  GraphBuilder g;
  Tensor& h = g.input(DType::F16, {8, 4, 1, 1}, "h");
  Tensor& w = g.weight(DType::BF16, {8, 3, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {8, 2, 1, 1}, "x");
  EXPECT_EQ(limit_for(ops::add(g, h, h)), arithmetic_limit(DType::F16));
  EXPECT_EQ(limit_for(ops::scale(g, x, 2.0f)), arithmetic_limit(DType::F32));
  EXPECT_EQ(limit_for(ops::silu(g, h)), transcendental_limit(DType::F16));
  EXPECT_EQ(limit_for(ops::soft_max(g, x, nullptr, 1.0f)), transcendental_limit(DType::F32));
  EXPECT_EQ(limit_for(ops::mul_mat(g, w, x)), mul_mat_limit(DType::BF16)) << "by the weight's dtype";
  EXPECT_EQ(limit_for(ops::cast(g, x, DType::F16)), narrowing_limit(DType::F16));
  EXPECT_EQ(limit_for(ops::cast(g, h, DType::BF16)), narrowing_limit(DType::BF16));
  EXPECT_EQ(limit_for(ops::cast(g, h, DType::F32)), kExact) << "widening is exact";
  EXPECT_EQ(limit_for(ops::cont(g, ops::transpose(g, h))), kExact);
  EXPECT_EQ(limit_for(ops::transpose(g, h)), kExact) << "a view computes nothing";
  EXPECT_EQ(limit_for(h), kExact) << "nor does a leaf";
}

TEST(Limits, QuantizedWeightsAllowEightBitActivationsAndDecodeExactly) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::Q4_K, {256, 3, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {256, 2, 1, 1}, "x");
  Tensor& ids = g.input(DType::I32, {2, 1, 1, 1}, "ids");
  EXPECT_EQ(limit_for(ops::mul_mat(g, w, x)), kQuantizedMulMatLimit);
  EXPECT_EQ(limit_for(ops::get_rows(g, w, ids)), kQuantizedDecodeLimit);
  EXPECT_GT(kQuantizedMulMatLimit, mul_mat_limit(DType::BF16))
      << "8-bit activations lose more than bf16 ones";
}

TEST(Limits, AGraphOfOneOpHasThatOpsLimit) {
  GraphBuilder g;
  Tensor& r =
      ops::mul_mat(g, g.weight(DType::F16, {8, 3, 1, 1}, "w"), g.input(DType::F32, {8, 2, 1, 1}, "x"));
  EXPECT_EQ(graph_limit(g.build({&r})), mul_mat_limit(DType::F16));
}

TEST(Limits, StagesInSeriesAddTheirLimitsAndViewsPassThemOn) {
  GraphBuilder g;
  Tensor& mm =
      ops::mul_mat(g, g.weight(DType::F32, {8, 4, 1, 1}, "w"), g.input(DType::F32, {8, 2, 1, 1}, "x"));
  Tensor& r = ops::silu(g, ops::cont(g, ops::transpose(g, mm)));
  EXPECT_DOUBLE_EQ(graph_limit(g.build({&r})), mul_mat_limit(DType::F32) + transcendental_limit(DType::F32));
}

TEST(Limits, ParallelBranchesAndOutputsTakeTheLargest) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {8, 2, 1, 1}, "x");
  Tensor& mm = ops::mul_mat(g, g.weight(DType::BF16, {8, 8, 1, 1}, "w"), x);
  Tensor& act = ops::gelu(g, x);
  Tensor& sum = ops::add(g, act, mm);
  Tensor& other = ops::scale(g, x, 3.0f);
  EXPECT_DOUBLE_EQ(graph_limit(g.build({&other, &sum})),
                   mul_mat_limit(DType::BF16) + arithmetic_limit(DType::F32));
}

TEST(Limits, AGraphThatOnlyMovesDataIsExact) {
  GraphBuilder g;
  Tensor& table = g.weight(DType::F16, {8, 5, 1, 1}, "table");
  Tensor& rows = ops::get_rows(g, table, g.input(DType::I32, {3, 1, 1, 1}, "ids"));
  Tensor& r = ops::cont(g, ops::permute(g, rows, {1, 0, 2, 3}));
  EXPECT_EQ(graph_limit(g.build({&r})), kExact);
}

}  // namespace
}  // namespace bk::verify
