// SPDX-License-Identifier: MIT
// FLOP and byte counts of core/op_info.h.
#include <gtest/gtest.h>

#include "bk/op_info.h"
#include "bk/ops.h"

namespace bk {
namespace {

TEST(OpCostTest, MulMatCountsTwoFlopsPerTermOverEveryBatch) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::F16, {4097, 33, 2, 1}, "w");  // K, M, B2
  Tensor& x = g.input(DType::F32, {4097, 7, 4, 3}, "x");    // K, N, C2, C3
  const OpCost c = op_cost(ops::mul_mat(g, w, x));
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 33 * 7 * 4097 * 4 * 3);
  EXPECT_EQ(c.bytes_read, 4097u * 33 * 2 * 2 + 4097u * 7 * 4 * 3 * 4);  // w once, though shared
  EXPECT_EQ(c.bytes_written, 33u * 7 * 4 * 3 * 4);
}

TEST(OpCostTest, ElementwiseReadsABroadcastOperandOnce) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {33, 7, 1, 1}, "a");
  Tensor& b = g.input(DType::F32, {33, 1, 1, 1}, "b");
  const OpCost c = op_cost(ops::add(g, a, b));
  EXPECT_DOUBLE_EQ(c.flops, 33.0 * 7);
  EXPECT_EQ(c.bytes_read, (33u * 7 + 33u) * 4);
  EXPECT_EQ(c.bytes_written, 33u * 7 * 4);
  Tensor& h = g.input(DType::BF16, {10, 1, 1, 1}, "h");
  EXPECT_EQ(op_cost(ops::gelu(g, h)).bytes_read, 20u);
}

TEST(OpCostTest, NormalisingOpsCountTheirPasses) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {64, 4, 7, 1}, "a");
  EXPECT_DOUBLE_EQ(op_cost(ops::rms_norm(g, a, 1e-5f)).flops, 3.0 * 64 * 4 * 7);
  Tensor& mask = g.input(DType::F32, {64, 8, 1, 1}, "mask");
  const OpCost sm = op_cost(ops::soft_max(g, a, &mask, 1.0f));
  EXPECT_DOUBLE_EQ(sm.flops, 6.0 * 64 * 4 * 7);
  EXPECT_EQ(sm.bytes_read, (64u * 4 * 7 + 64u * 4) * 4);  // only the mask rows a uses
  EXPECT_DOUBLE_EQ(op_cost(ops::soft_max(g, a, nullptr, 1.0f)).flops, 5.0 * 64 * 4 * 7);
  Tensor& pos = g.input(DType::I32, {7, 1, 1, 1}, "pos");
  EXPECT_DOUBLE_EQ(op_cost(ops::rope(g, a, pos, 32, RopeMode::normal, 1e4f)).flops, 3.0 * 32 * 4 * 7);
}

TEST(OpCostTest, GetRowsReadsOnlyTheGatheredRows) {
  GraphBuilder g;
  Tensor& table = g.weight(DType::F16, {33, 1000, 1, 1}, "embd");
  Tensor& ids = g.input(DType::I32, {7, 1, 1, 1}, "ids");
  const OpCost c = op_cost(ops::get_rows(g, table, ids));
  EXPECT_EQ(c.flops, 0.0);
  EXPECT_EQ(c.bytes_read, 7u * 33 * 2 + 7u * 4);
  EXPECT_EQ(c.bytes_written, 7u * 33 * 4);
}

TEST(OpCostTest, CopiesMoveBytesAndViewsNothing) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {64, 7, 1, 1}, "a");
  Tensor& b = g.input(DType::F16, {64, 7, 1, 1}, "b");
  const OpCost c = op_cost(ops::cpy(g, a, b));
  EXPECT_EQ(c.bytes_read, 64u * 7 * 4);
  EXPECT_EQ(c.bytes_written, 64u * 7 * 2);
  const OpCost t = op_cost(ops::transpose(g, a));
  EXPECT_EQ(t.flops, 0.0);
  EXPECT_EQ(t.bytes_read + t.bytes_written, 0u);
  EXPECT_EQ(op_cost(ops::cont(g, ops::transpose(g, a))).bytes_written, 64u * 7 * 4);
}

TEST(OpCostTest, GraphCostSumsItsNodes) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::F32, {16, 8, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {16, 4, 1, 1}, "x");
  Tensor& y = ops::silu(g, ops::mul_mat(g, w, x));
  Graph graph = g.build({&y});
  EXPECT_DOUBLE_EQ(graph_cost(graph).flops, 2.0 * 8 * 4 * 16 + 8 * 4);
}

}  // namespace
}  // namespace bk
