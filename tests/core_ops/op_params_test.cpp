// SPDX-License-Identifier: MIT
// Op parameter accessors, and that the builders compose into the graphs the project needs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bk/ops.h"
#include "expect_error.h"

namespace bk {
namespace {

using test::expect_invalid;

TEST(OpParams, FloatsRoundTripBitExactly) {
  Tensor t;
  set_op_param_f32(t, 3, -0.0f);
  EXPECT_TRUE(std::signbit(op_param_f32(t, 3)));
  set_op_param_f32(t, 7, 1e-30f);
  EXPECT_EQ(op_param_f32(t, 7), 1e-30f);
  set_op_param_i32(t, 0, -5);
  EXPECT_EQ(op_param_i32(t, 0), -5);
}

TEST(OpParams, IndexOutsideTheArrayThrows) {
  Tensor t;
  t.name = "n";
  expect_invalid([&] { (void)op_param_f32(t, kMaxOpParams); }, {"op parameter 8", "'n'"});
  expect_invalid([&] { set_op_param_i32(t, -1, 0); }, {"op parameter -1"});
}

TEST(OpParams, TypedAccessorsCheckTheOp) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {4, 1, 1, 1}, "a");
  Tensor& s = ops::silu(g, a);
  expect_invalid([&] { (void)scale_factor(s); }, {"scale_factor", "silu", "scale"});
  expect_invalid([&] { (void)rope_params(s); }, {"rope_params"});
  expect_invalid([&] { (void)rms_norm_eps(s); }, {"rms_norm_eps"});
  expect_invalid([&] { (void)soft_max_scale(s); }, {"soft_max_scale"});
  expect_invalid([&] { (void)permute_axes(s); }, {"permute_axes"});
}

// A transformer layer's attention and MLP, written with the builders, must build and order.
TEST(OpsComposition, TransformerLayerBuilds) {
  constexpr int64_t kEmbd = 64, kHeads = 4, kHeadDim = 16, kTokens = 7, kFf = 128;
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {kEmbd, kTokens, 1, 1}, "x");
  Tensor& pos = g.input(DType::I32, {kTokens, 1, 1, 1}, "pos");
  Tensor& mask = g.input(DType::F32, {kTokens, kTokens, 1, 1}, "mask");
  Tensor& wq = g.weight(DType::F16, {kEmbd, kEmbd, 1, 1}, "wq");
  Tensor& wk = g.weight(DType::F16, {kEmbd, kEmbd, 1, 1}, "wk");
  Tensor& wv = g.weight(DType::F16, {kEmbd, kEmbd, 1, 1}, "wv");
  Tensor& wo = g.weight(DType::F16, {kEmbd, kEmbd, 1, 1}, "wo");
  Tensor& w_up = g.weight(DType::BF16, {kEmbd, kFf, 1, 1}, "w_up");
  Tensor& w_down = g.weight(DType::BF16, {kFf, kEmbd, 1, 1}, "w_down");
  Tensor& norm_w = g.weight(DType::F32, {kEmbd, 1, 1, 1}, "norm_w");

  Tensor& h = ops::mul(g, ops::rms_norm(g, x, 1e-5f), norm_w);
  auto heads = [&](Tensor& w) {
    return &ops::reshape(g, ops::mul_mat(g, w, h), {kHeadDim, kHeads, kTokens, 1});
  };
  Tensor& q = ops::rope(g, *heads(wq), pos, kHeadDim, RopeMode::neox, 10000.0f);
  Tensor& k = ops::rope(g, *heads(wk), pos, kHeadDim, RopeMode::neox, 10000.0f);
  Tensor& v = *heads(wv);
  // [head_dim, tokens, heads]: each head is one batch of the matmuls.
  Tensor& qp = ops::permute(g, q, {0, 2, 1, 3});
  Tensor& kp = ops::permute(g, k, {0, 2, 1, 3});
  Tensor& kq = ops::soft_max(g, ops::mul_mat(g, kp, qp), &mask, 0.25f);  // [tokens_k, tokens_q, heads]
  Tensor& vt = ops::cont(g, ops::permute(g, v, {1, 2, 0, 3}));           // [tokens_k, head_dim, heads]
  Tensor& att = ops::mul_mat(g, vt, kq);                                 // [head_dim, tokens_q, heads]
  Tensor& merged = ops::reshape(g, ops::cont(g, ops::permute(g, att, {0, 2, 1, 3})), {kEmbd, kTokens, 1, 1});
  Tensor& x1 = ops::add(g, x, ops::mul_mat(g, wo, merged));
  Tensor& ff = ops::mul_mat(g, w_down, ops::gelu(g, ops::mul_mat(g, w_up, x1)));
  Tensor& out = ops::add(g, x1, ff);

  Graph graph = g.build({&out});
  EXPECT_EQ(graph.leafs().size(), 10u);
  EXPECT_EQ(graph.nodes().back(), &out);
  EXPECT_EQ(out.ne, x.ne);
}

}  // namespace
}  // namespace bk
