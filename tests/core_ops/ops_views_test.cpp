// SPDX-License-Identifier: MIT
// The copy builders and the free views of core/ops.h.
#include <gtest/gtest.h>

#include "bk/ops.h"
#include "expect_error.h"

namespace bk {
namespace {

using test::expect_invalid;

TEST(OpsCpy, ResultIsAViewOfTheDestination) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {64, 7, 1, 1}, "k_new");
  Tensor& cache = g.input(DType::F16, {64, 16, 1, 1}, "k_cache");
  // Rows 3..9 of the cache, as a view.
  Tensor& slot = ops::view(g, cache, {64, 7, 1, 1}, cache.nb, 3 * cache.nb[1]);
  Tensor& r = ops::cpy(g, a, slot);
  EXPECT_EQ(r.op, Op::cpy);
  EXPECT_EQ(r.type, DType::F16);
  EXPECT_EQ(r.src[0], &a);
  EXPECT_EQ(r.src[1], &slot);
  EXPECT_EQ(r.view_src, &cache);
  EXPECT_EQ(r.view_offset, 3 * cache.nb[1]);
  EXPECT_EQ(r.nb, cache.nb);
}

TEST(OpsCpy, PairsElementsInLogicalOrderAcrossShapes) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {6, 2, 1, 1}, "a");
  Tensor& b = g.input(DType::BF16, {3, 4, 1, 1}, "b");
  EXPECT_EQ(ops::cpy(g, a, b).ne, b.ne);
  Tensor& c = g.input(DType::F32, {5, 2, 1, 1}, "c");
  expect_invalid([&] { ops::cpy(g, c, b); }, {"cpy", "'c'", "10 elements", "'b'", "12"});
  Tensor& ids = g.input(DType::I32, {12, 1, 1, 1}, "ids");
  expect_invalid([&] { ops::cpy(g, ids, b); }, {"cpy", "'ids'"});
}

TEST(OpsCast, MakesANewTensorOfTheTargetType) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {7, 33, 1, 1}, "a");
  Tensor& r = ops::cast(g, ops::transpose(g, a), DType::BF16);
  EXPECT_EQ(r.op, Op::cpy);
  EXPECT_EQ(r.type, DType::BF16);
  EXPECT_EQ(r.ne, (Shape{33, 7, 1, 1}));
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_FALSE(r.is_view());
  EXPECT_EQ(r.src[1], nullptr);
  expect_invalid([&] { ops::cast(g, a, DType::I32); }, {"cast", "'a'", "i32"});
}

TEST(OpsCont, MakesAPermutedTensorContiguous) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F16, {64, 4, 7, 1}, "a");
  Tensor& p = ops::permute(g, a, {0, 2, 1, 3});
  EXPECT_FALSE(p.is_contiguous());
  Tensor& r = ops::cont(g, p);
  EXPECT_EQ(r.op, Op::cont);
  EXPECT_EQ(r.ne, (Shape{64, 7, 4, 1}));
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_EQ(r.type, DType::F16);
}

TEST(OpsReshape, NeedsContiguousSourceAndSameCount) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {64, 12, 1, 1}, "qkv");
  Tensor& r = ops::reshape(g, a, {64, 4, 3, 1});
  EXPECT_EQ(r.op, Op::reshape);
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_EQ(r.view_src, &a);
  // A view of a view points at the storage, not at the intermediate view.
  EXPECT_EQ(ops::reshape(g, r, {768, 1, 1, 1}).view_src, &a);
  expect_invalid([&] { ops::reshape(g, a, {64, 13, 1, 1}); }, {"reshape", "'qkv'", "768", "832"});
  expect_invalid(
      [&] {
        ops::reshape(g, ops::transpose(g, a), {768, 1, 1, 1});
      },
      {"reshape", "not contiguous", "cont()"});
  expect_invalid([&] { ops::reshape(g, a, {-768, -1, 1, 1}); }, {"reshape", "negative"});
}

TEST(OpsView, StaysInsideTheSource) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {8, 4, 1, 1}, "a");  // 128 bytes
  Tensor& last_row = ops::view(g, a, {8, 1, 1, 1}, a.nb, 3 * a.nb[1]);
  EXPECT_EQ(last_row.view_offset, 96u);
  EXPECT_EQ(last_row.op, Op::view);
  // Every other column: strides need not be packed.
  Tensor& cols = ops::view(g, a, {4, 4, 1, 1}, {8, 32, 128, 128}, 4);
  EXPECT_FALSE(cols.is_contiguous());
  expect_invalid([&] { ops::view(g, a, {8, 1, 1, 1}, a.nb, 100); }, {"view", "past", "128 bytes", "'a'"});
  expect_invalid([&] { ops::view(g, a, {8, 1, 1, 1}, a.nb, 2); }, {"view", "multiples", "element size 4"});
  expect_invalid([&] { ops::view(g, a, {2, 1, 1, 1}, {SIZE_MAX - 3, 4, 4, 4}, 0); }, {"view", "past"});
  // An empty view fits anywhere inside.
  EXPECT_EQ(ops::view(g, a, {0, 1, 1, 1}, a.nb, 128).nelements(), 0);
}

TEST(OpsPermute, MovesDimensionIToAxesI) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {64, 4, 7, 2}, "a");
  Tensor& p = ops::permute(g, a, {0, 2, 1, 3});
  EXPECT_EQ(p.op, Op::permute);
  EXPECT_EQ(p.ne, (Shape{64, 7, 4, 2}));
  EXPECT_EQ(p.nb[1], a.nb[2]);
  EXPECT_EQ(p.nb[2], a.nb[1]);
  EXPECT_EQ(permute_axes(p), (std::array<int, 4>{0, 2, 1, 3}));

  Tensor& r = ops::permute(g, a, {3, 0, 1, 2});  // dimension 0 becomes dimension 3
  EXPECT_EQ(r.ne, (Shape{4, 7, 2, 64}));
  EXPECT_EQ(r.nb[3], a.nb[0]);
  expect_invalid([&] { ops::permute(g, a, {0, 1, 1, 3}); }, {"permute", "(0, 1, 1, 3)", "'a'"});
  expect_invalid([&] { ops::permute(g, a, {0, 1, 2, 4}); }, {"permute"});
}

TEST(OpsTranspose, SwapsTheFirstTwoDimensions) {
  GraphBuilder g;
  Tensor& a = g.input(DType::BF16, {33, 7, 1, 1}, "a");
  Tensor& t = ops::transpose(g, a);
  EXPECT_EQ(t.op, Op::transpose);
  EXPECT_EQ(t.ne, (Shape{7, 33, 1, 1}));
  EXPECT_EQ(t.nb[0], a.nb[1]);
  EXPECT_EQ(t.nb[1], a.nb[0]);
  EXPECT_EQ(permute_axes(t), (std::array<int, 4>{1, 0, 2, 3}));
}

}  // namespace
}  // namespace bk
