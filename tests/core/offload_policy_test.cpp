// SPDX-License-Identifier: MIT
// is_batched_mul_mat: the offload policy the GPU devices share (core/device.h).

#include <gtest/gtest.h>

#include "bk/device.h"
#include "bk/graph.h"
#include "bk/ops.h"

namespace bk {
namespace {

Tensor& mul_mat_with_rows(GraphBuilder& b, int64_t rows) {
  return ops::mul_mat(b, b.weight(DType::F32, {64, 16, 1, 1}, "w"),
                      b.input(DType::F32, {64, rows, 1, 1}, "x"));
}

TEST(OffloadPolicy, MulMatFromTheMinimumRowCountUp) {
  GraphBuilder b;
  EXPECT_FALSE(is_batched_mul_mat(mul_mat_with_rows(b, 1)));
  EXPECT_FALSE(is_batched_mul_mat(mul_mat_with_rows(b, kOffloadMinRows - 1)));
  EXPECT_TRUE(is_batched_mul_mat(mul_mat_with_rows(b, kOffloadMinRows)));
  EXPECT_TRUE(is_batched_mul_mat(mul_mat_with_rows(b, 512)));
}

TEST(OffloadPolicy, OnlyMulMat) {
  GraphBuilder b;
  Tensor& x = b.input(DType::F32, {64, 512, 1, 1}, "x");
  Tensor& w = b.weight(DType::F32, {64, 512, 1, 1}, "w");
  EXPECT_FALSE(is_batched_mul_mat(ops::add(b, x, w)));
  EXPECT_FALSE(is_batched_mul_mat(x));
}

}  // namespace
}  // namespace bk
