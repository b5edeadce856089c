// SPDX-License-Identifier: MIT
// Shape and type rules of the compute builders in core/ops.h.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bk/ops.h"
#include "expect_error.h"

namespace bk {
namespace {

using test::expect_invalid;

TEST(OpsElementwise, AddKeepsShapeAndTypeOfA) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F16, {33, 7, 2, 1}, "a");
  Tensor& b = g.input(DType::F16, {33, 7, 2, 1}, "b");
  Tensor& r = ops::add(g, a, b);
  EXPECT_EQ(r.op, Op::add);
  EXPECT_EQ(r.type, DType::F16);
  EXPECT_EQ(r.ne, a.ne);
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_EQ(r.src[0], &a);
  EXPECT_EQ(r.src[1], &b);
}

TEST(OpsElementwise, RowColumnAndScalarBroadcast) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {33, 7, 4, 2}, "a");
  for (Shape ne :
       {Shape{33, 1, 1, 1}, Shape{1, 7, 1, 1}, Shape{1, 1, 1, 1}, Shape{33, 7, 2, 1}, Shape{11, 7, 4, 2}}) {
    Tensor& b = g.input(DType::F32, ne, "b");
    EXPECT_EQ(ops::mul(g, a, b).ne, a.ne) << b.shape_string();
  }
}

TEST(OpsElementwise, RejectsBroadcastThatDoesNotDivide) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {33, 7, 1, 1}, "act");
  Tensor& b = g.input(DType::F32, {7, 1, 1, 1}, "bias");
  expect_invalid([&] { ops::add(g, a, b); }, {"add", "'act'", "[33, 7, 1, 1]", "'bias'", "[7, 1, 1, 1]"});
  // b may be smaller than a, never larger.
  expect_invalid([&] { ops::mul(g, b, a); }, {"mul", "'act'", "'bias'"});
}

TEST(OpsElementwise, ZeroSizedDimsNeverDivideByZero) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {4, 3, 1, 1}, "a");
  Tensor& empty = g.input(DType::F32, {4, 0, 1, 1}, "empty");
  expect_invalid([&] { ops::add(g, a, empty); }, {"'empty'"});
  EXPECT_EQ(ops::add(g, empty, empty).nelements(), 0);
}

TEST(OpsElementwise, RejectsIntegerOperands) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {4, 1, 1, 1}, "a");
  Tensor& i = g.input(DType::I32, {4, 1, 1, 1}, "ids");
  expect_invalid([&] { ops::add(g, a, i); }, {"add", "'ids'", "i32", "f32, f16 or bf16"});
  expect_invalid([&] { ops::silu(g, i); }, {"silu", "'ids'"});
  expect_invalid([&] { ops::gelu(g, i); }, {"gelu", "'ids'"});
}

TEST(OpsElementwise, ScaleStoresItsFactorAndRejectsNonFinite) {
  GraphBuilder g;
  Tensor& a = g.input(DType::BF16, {5, 1, 1, 1}, "a");
  EXPECT_EQ(scale_factor(ops::scale(g, a, -0.125f)), -0.125f);
  expect_invalid([&] { ops::scale(g, a, std::numeric_limits<float>::infinity()); }, {"scale", "finite"});
}

TEST(OpsMulMat, FollowsTheGgmlConvention) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::F16, {4097, 33, 1, 1}, "w");  // K = 4097, M = 33
  Tensor& x = g.input(DType::F32, {4097, 7, 1, 1}, "x");    // N = 7
  Tensor& r = ops::mul_mat(g, w, x);
  EXPECT_EQ(r.op, Op::mul_mat);
  EXPECT_EQ(r.type, DType::F32);
  EXPECT_EQ(r.ne, (Shape{33, 7, 1, 1}));
}

TEST(OpsMulMat, BroadcastsWeightsOverBatches) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::BF16, {64, 16, 2, 1}, "k");
  Tensor& x = g.input(DType::F32, {64, 5, 6, 3}, "q");
  EXPECT_EQ(ops::mul_mat(g, w, x).ne, (Shape{16, 5, 6, 3}));
  expect_invalid([&] { ops::mul_mat(g, x, w); }, {"mul_mat", "'k'", "must be f32"});
  Tensor& odd = g.input(DType::F32, {64, 5, 3, 3}, "odd");
  expect_invalid([&] { ops::mul_mat(g, w, odd); },
                 {"mul_mat", "'k'", "[64, 16, 2, 1]", "'odd'", "multiples"});
}

TEST(OpsMulMat, RejectsMismatchedReductionLength) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::F32, {4096, 32, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {4095, 7, 1, 1}, "x");
  expect_invalid([&] { ops::mul_mat(g, w, x); },
                 {"mul_mat", "'w'", "[4096, 32, 1, 1]", "'x'", "[4095, 7, 1, 1]", "K"});
}

TEST(OpsMulMat, RejectsIntegerWeights) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::I32, {8, 2, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {8, 2, 1, 1}, "x");
  expect_invalid([&] { ops::mul_mat(g, w, x); }, {"mul_mat", "'w'", "i32"});
}

TEST(OpsRmsNorm, StoresEpsAndRejectsNonPositive) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {4097, 3, 1, 1}, "h");
  Tensor& r = ops::rms_norm(g, a, 1e-6f);
  EXPECT_EQ(r.ne, a.ne);
  EXPECT_EQ(rms_norm_eps(r), 1e-6f);
  expect_invalid([&] { ops::rms_norm(g, a, 0.0f); }, {"rms_norm", "eps"});
  expect_invalid([&] { ops::rms_norm(g, a, std::nanf("")); }, {"rms_norm", "eps"});
}

TEST(OpsSoftMax, MaskIsOptional) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {33, 7, 4, 1}, "scores");
  Tensor& plain = ops::soft_max(g, a, nullptr, 1.0f);
  EXPECT_EQ(plain.src[1], nullptr);
  Tensor& mask = g.input(DType::F32, {33, 8, 2, 1}, "mask");  // more rows than a, repeats over ne2
  Tensor& masked = ops::soft_max(g, a, &mask, 0.125f);
  EXPECT_EQ(masked.src[1], &mask);
  EXPECT_EQ(soft_max_scale(masked), 0.125f);
  EXPECT_EQ(masked.ne, a.ne);
}

TEST(OpsSoftMax, RejectsMasksThatDoNotFit) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {33, 7, 4, 1}, "scores");
  Tensor& narrow = g.input(DType::F32, {32, 7, 1, 1}, "narrow");
  Tensor& short_rows = g.input(DType::F32, {33, 6, 1, 1}, "short");
  Tensor& batch3 = g.input(DType::F32, {33, 7, 3, 1}, "batch3");
  Tensor& half = g.input(DType::F16, {33, 7, 1, 1}, "half");
  expect_invalid([&] { ops::soft_max(g, a, &narrow, 1.0f); },
                 {"soft_max", "'narrow'", "[32, 7, 1, 1]", "'scores'"});
  expect_invalid([&] { ops::soft_max(g, a, &short_rows, 1.0f); }, {"soft_max", "'short'"});
  expect_invalid([&] { ops::soft_max(g, a, &batch3, 1.0f); }, {"soft_max", "'batch3'"});
  expect_invalid([&] { ops::soft_max(g, a, &half, 1.0f); }, {"soft_max", "'half'", "must be f32"});
}

TEST(OpsRope, StoresItsParameters) {
  GraphBuilder g;
  Tensor& q = g.input(DType::F32, {64, 4, 7, 1}, "q");
  Tensor& pos = g.input(DType::I32, {7, 1, 1, 1}, "pos");
  Tensor& r = ops::rope(g, q, pos, 32, RopeMode::neox, 500000.0f);
  const RopeParams p = rope_params(r);
  EXPECT_EQ(p.n_dims, 32);
  EXPECT_EQ(p.mode, RopeMode::neox);
  EXPECT_EQ(p.freq_base, 500000.0f);
  EXPECT_EQ(r.ne, q.ne);
  EXPECT_EQ(r.src[1], &pos);
  EXPECT_STREQ(rope_mode_name(p.mode), "neox");
}

TEST(OpsRope, RejectsBadPositionsAndDims) {
  GraphBuilder g;
  Tensor& q = g.input(DType::F32, {64, 4, 7, 1}, "q");
  Tensor& pos = g.input(DType::I32, {7, 1, 1, 1}, "pos");
  Tensor& pos6 = g.input(DType::I32, {6, 1, 1, 1}, "pos6");
  Tensor& fpos = g.input(DType::F32, {7, 1, 1, 1}, "fpos");
  expect_invalid([&] { ops::rope(g, q, pos6, 64, RopeMode::normal, 1e4f); }, {"rope", "'pos6'", "7"});
  expect_invalid([&] { ops::rope(g, q, fpos, 64, RopeMode::normal, 1e4f); }, {"rope", "'fpos'", "i32"});
  expect_invalid([&] { ops::rope(g, q, pos, 63, RopeMode::normal, 1e4f); }, {"rope", "n_dims = 63"});
  expect_invalid([&] { ops::rope(g, q, pos, 66, RopeMode::normal, 1e4f); }, {"rope", "n_dims = 66", "64"});
  expect_invalid([&] { ops::rope(g, q, pos, 0, RopeMode::neox, 1e4f); }, {"rope", "n_dims = 0"});
  expect_invalid([&] { ops::rope(g, q, pos, 64, static_cast<RopeMode>(7), 1e4f); }, {"rope", "mode 7"});
  expect_invalid([&] { ops::rope(g, q, pos, 64, RopeMode::neox, -1.0f); }, {"rope", "freq_base"});
}

TEST(OpsGetRows, GathersIntoF32) {
  GraphBuilder g;
  Tensor& table = g.weight(DType::BF16, {33, 100, 1, 1}, "embd");
  Tensor& ids = g.input(DType::I32, {7, 1, 1, 1}, "ids");
  Tensor& r = ops::get_rows(g, table, ids);
  EXPECT_EQ(r.type, DType::F32);
  EXPECT_EQ(r.ne, (Shape{33, 7, 1, 1}));

  Tensor& batched = g.weight(DType::F16, {8, 10, 3, 2}, "batched");
  Tensor& bids = g.input(DType::I32, {4, 3, 2, 1}, "bids");
  EXPECT_EQ(ops::get_rows(g, batched, bids).ne, (Shape{8, 4, 3, 2}));
}

TEST(OpsGetRows, RejectsBadIndices) {
  GraphBuilder g;
  Tensor& table = g.weight(DType::F32, {33, 100, 3, 1}, "embd");
  Tensor& fids = g.input(DType::F32, {7, 3, 1, 1}, "fids");
  Tensor& ids = g.input(DType::I32, {7, 1, 1, 1}, "ids");
  expect_invalid([&] { ops::get_rows(g, table, fids); }, {"get_rows", "'fids'", "i32"});
  expect_invalid([&] { ops::get_rows(g, table, ids); }, {"get_rows", "'ids'", "'embd'", "[33, 100, 3, 1]"});
  expect_invalid([&] { ops::get_rows(g, ids, ids); }, {"get_rows", "table", "'ids'"});
}

}  // namespace
}  // namespace bk
