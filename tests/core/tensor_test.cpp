// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "bk/graph.h"
#include "bk/tensor.h"

namespace bk {
namespace {

TEST(Tensor, PackedStridesAndSizes) {
  GraphBuilder b;
  Tensor& t = b.input(DType::F16, {7, 3, 2, 1}, "t");
  EXPECT_EQ(t.nb[0], 2u);
  EXPECT_EQ(t.nb[1], 14u);
  EXPECT_EQ(t.nb[2], 42u);
  EXPECT_EQ(t.nb[3], 84u);
  EXPECT_EQ(t.nelements(), 42);
  EXPECT_EQ(t.nrows(), 6);
  EXPECT_EQ(t.row_bytes(), 14u);
  EXPECT_EQ(t.nbytes(), 84u);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.dims(), 3);
  EXPECT_EQ(t.shape_string(), "[7, 3, 2, 1]");
}

TEST(Tensor, TransposedStridesSpanSameBytes) {
  GraphBuilder b;
  Tensor& t = b.input(DType::F32, {5, 3, 1, 1}, "t");
  Tensor& v = b.view_node(Op::transpose, t, {3, 5, 1, 1}, {t.nb[1], t.nb[0], t.nb[2], t.nb[3]}, 0);
  EXPECT_FALSE(v.is_contiguous());
  EXPECT_EQ(v.nbytes(), t.nbytes());
  EXPECT_EQ(v.view_src, &t);
}

TEST(Tensor, ViewOfViewPointsAtRoot) {
  GraphBuilder b;
  Tensor& t = b.input(DType::F32, {8, 4, 1, 1}, "t");
  Tensor& row = b.view_node(Op::view, t, {8, 2, 1, 1}, t.nb, 32);
  Tensor& sub = b.view_node(Op::view, row, {4, 1, 1, 1}, t.nb, 16);
  EXPECT_EQ(sub.view_src, &t);
  EXPECT_EQ(sub.view_offset, 48u);
}

TEST(Tensor, EmptyTensorHasNoBytes) {
  GraphBuilder b;
  Tensor& t = b.input(DType::F32, {0, 4, 1, 1}, "empty");
  EXPECT_EQ(t.nelements(), 0);
  EXPECT_EQ(t.nbytes(), 0u);
}

}  // namespace
}  // namespace bk
