// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <algorithm>

#include "bk/error.h"
#include "bk/graph.h"

namespace bk {
namespace {

size_t position(std::span<Tensor* const> list, const Tensor* t) {
  return static_cast<size_t>(std::find(list.begin(), list.end(), t) - list.begin());
}

TEST(Graph, OrdersSourcesBeforeUsersAndSplitsLeafs) {
  GraphBuilder b;
  Tensor& x = b.input(DType::F32, {4, 1, 1, 1}, "x");
  Tensor& w = b.weight(DType::F32, {4, 1, 1, 1}, "w");
  Tensor& unused = b.input(DType::F32, {4, 1, 1, 1}, "unused");
  Tensor& s = b.node(Op::add, DType::F32, x.ne, {&x, &w});
  Tensor& m = b.node(Op::mul, DType::F32, x.ne, {&s, &x});
  Tensor& out = b.node(Op::add, DType::F32, x.ne, {&m, &s});
  Graph g = b.build({&out});

  ASSERT_EQ(g.nodes().size(), 3u);
  EXPECT_LT(position(g.nodes(), &s), position(g.nodes(), &m));
  EXPECT_LT(position(g.nodes(), &m), position(g.nodes(), &out));
  ASSERT_EQ(g.leafs().size(), 2u);
  EXPECT_NE(position(g.leafs(), &x), g.leafs().size());
  EXPECT_NE(position(g.leafs(), &w), g.leafs().size());
  EXPECT_EQ(position(g.leafs(), &unused), g.leafs().size());
  EXPECT_TRUE(out.has_flag(kTensorOutput));
  EXPECT_TRUE(w.has_flag(kTensorWeight));
  EXPECT_EQ(g.find("x"), &x);
  EXPECT_EQ(g.find("nope"), nullptr);
  EXPECT_EQ(g.tensor_count(), 6u);
}

TEST(Graph, DeepChainDoesNotOverflowTheStack) {
  GraphBuilder b;
  Tensor* t = &b.input(DType::F32, {1, 1, 1, 1}, "x");
  constexpr int kDepth = 200000;
  for (int i = 0; i < kDepth; ++i) t = &b.node(Op::scale, DType::F32, t->ne, {t});
  Graph g = b.build({t});
  EXPECT_EQ(g.nodes().size(), static_cast<size_t>(kDepth));
  EXPECT_EQ(g.nodes().back(), t);
}

TEST(Graph, ViewSourcesAreOrderedFirst) {
  GraphBuilder b;
  Tensor& x = b.input(DType::F32, {4, 2, 1, 1}, "x");
  Tensor& y = b.node(Op::scale, DType::F32, x.ne, {&x});
  Tensor& v = b.view_node(Op::reshape, y, {8, 1, 1, 1}, packed_strides(DType::F32, {8, 1, 1, 1}), 0);
  Graph g = b.build({&v});
  ASSERT_EQ(g.nodes().size(), 2u);
  EXPECT_EQ(g.nodes()[0], &y);
  EXPECT_EQ(g.nodes()[1], &v);
}

TEST(Graph, ForeignOutputIsRejected) {
  GraphBuilder a, b;
  Tensor& x = a.input(DType::F32, {1, 1, 1, 1}, "x");
  try {
    b.build({&x});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  }
}

TEST(Graph, NegativeDimensionIsRejected) {
  GraphBuilder b;
  EXPECT_THROW(b.input(DType::F32, {-1, 1, 1, 1}, "bad"), Error);
}

}  // namespace
}  // namespace bk
