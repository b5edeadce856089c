// SPDX-License-Identifier: MIT
#include "probe/model_graphs.h"

#include <gtest/gtest.h>

#include "bk/error.h"
#include "bk/tensor.h"

namespace bk {
namespace {

int count_op(const Graph& g, Op op) {
  int n = 0;
  for (const Tensor* t : g.nodes()) n += t->op == op ? 1 : 0;
  return n;
}

TEST(ModelGraphs, TransformerIsALlamaLikeDecoder) {
  ModelParams p;
  p.layers = 3;
  Graph g = build_model_graph("transformer", p);
  EXPECT_EQ(count_op(g, Op::get_rows), 1);
  EXPECT_EQ(count_op(g, Op::rope), 2 * p.layers);
  EXPECT_EQ(count_op(g, Op::soft_max), p.layers);
  EXPECT_EQ(count_op(g, Op::silu), p.layers);
  EXPECT_EQ(count_op(g, Op::rms_norm), 2 * p.layers + 1);
  EXPECT_EQ(count_op(g, Op::mul_mat), 9 * p.layers + 1);  // q k v kq kqv o gate up down, output
  EXPECT_EQ(count_op(g, Op::add), 2 * p.layers);          // two residuals per layer
  ASSERT_EQ(g.outputs().size(), 1u);
  const Tensor& out = *g.outputs()[0];
  EXPECT_EQ(out.name, "result_output");
  EXPECT_EQ(out.ne[0], p.vocab());
  EXPECT_EQ(out.ne[1], p.batch);
  ASSERT_NE(g.find("blk.2.ffn_down.weight"), nullptr);
  EXPECT_TRUE(g.find("blk.2.ffn_down.weight")->has_flag(kTensorWeight));
  EXPECT_NE(g.find("kq_soft_max-1"), nullptr);
  EXPECT_NE(g.find("l_out-2"), nullptr);
  EXPECT_TRUE(g.find("tokens")->has_flag(kTensorInput));
}

TEST(ModelGraphs, NodesGrowLinearlyWithLayers) {
  ModelParams p;
  p.layers = 8;
  const size_t n8 = build_model_graph("transformer", p).nodes().size();
  p.layers = 16;
  const size_t n16 = build_model_graph("transformer", p).nodes().size();
  p.layers = 32;
  const size_t n32 = build_model_graph("transformer", p).nodes().size();
  EXPECT_EQ(n32 - n16, 2 * (n16 - n8));
  EXPECT_GT(n32, 800u);  // several hundred to a thousand nodes, like ggml's 32-layer decoder
}

TEST(ModelGraphs, WeightsHaveTheChosenDtype) {
  ModelParams p;
  p.dtype = DType::F16;
  Graph g = build_model_graph("mlp", p);
  EXPECT_EQ(g.find("blk.0.fc_up.weight")->type, DType::F16);
  EXPECT_EQ(g.find("blk.0.fc_up.bias")->type, DType::F32);
  Graph a = build_model_graph("attention", p);
  EXPECT_EQ(a.find("blk.1.attn_q.weight")->type, DType::F16);
  EXPECT_EQ(count_op(a, Op::soft_max), p.layers);
}

TEST(ModelGraphs, RejectsBadParameters) {
  ModelParams p;
  EXPECT_THROW(build_model_graph("resnet", p), Error);
  p.heads = 3;  // 256 is not a multiple of 3
  EXPECT_THROW(build_model_graph("attention", p), Error);
  p = ModelParams{};
  p.layers = 0;
  EXPECT_THROW(build_model_graph("mlp", p), Error);
  p = ModelParams{};
  p.dtype = DType::I32;
  EXPECT_THROW(build_model_graph("transformer", p), Error);
}

}  // namespace
}  // namespace bk
