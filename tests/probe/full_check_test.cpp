// SPDX-License-Identifier: MIT
// The full-result checks of probe/verify/full_check.h: honest results pass, one wrong element
// anywhere fails and is named, NaN never passes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "bk/error.h"
#include "probe/verify/full_check.h"
#include "probe/verify/rng.h"

namespace bk::verify {
namespace {

using V = std::vector<double>;

V random_values(size_t n, uint64_t seed) {
  SplitMix64 rng(seed);
  V v(n);
  for (double& x : v) x = rng.signed_uniform(0.1, 1.0);
  return v;
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ElementCheck, ExactValuesPass) {
  const V want = random_values(1000, 1);
  ElementCheck check(0);
  check.add(0, want, want);
  EXPECT_EQ(check.verdict(), "");
}

TEST(ElementCheck, OneWrongElementIsNamed) {
  const V want = random_values(1000, 2);
  V got = want;
  got[737] += 0.01;
  ElementCheck check(1e-10);
  check.add(0, std::span(got).first(500), std::span(want).first(500));
  check.add(500, std::span(got).subspan(500), std::span(want).subspan(500));
  EXPECT_TRUE(mentions(check.verdict(), "element 737")) << check.verdict();
}

TEST(ElementCheck, NoiseWithinTheLimitPasses) {
  const V want = random_values(100000, 3);
  V got = want;
  SplitMix64 rng(4);
  // Relative noise of 1e-4 is an NMSE near 3e-9, far under a limit of 1e-6.
  for (double& x : got) x *= 1 + 1e-4 * rng.signed_uniform(0.0, 1.0);
  ElementCheck check(1e-6);
  check.add(0, got, want);
  EXPECT_EQ(check.verdict(), "");
}

TEST(ElementCheck, NaNAndInfinityNeverPass) {
  const V want = random_values(10, 5);
  for (const double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    V got = want;
    got[3] = bad;
    got[7] += 100;  // a larger finite error must not hide the NaN
    ElementCheck check(1);
    check.add(0, got, want);
    EXPECT_TRUE(mentions(check.verdict(), "element 3")) << check.verdict();
  }
}

TEST(ElementCheck, LimitZeroAdmitsOnlyExactValues) {
  const V want = random_values(10, 6);
  V got = want;
  got[9] = std::nextafter(got[9], 2.0);
  ElementCheck check(0);
  check.add(0, got, want);
  EXPECT_TRUE(mentions(check.verdict(), "element 9")) << check.verdict();
}

TEST(ElementCheck, MismatchedSpansAreRefused) {
  ElementCheck check(0);
  const V a(3), b(4);
  EXPECT_THROW(check.add(0, a, b), Error);
}

// r[j][m] = w_m . x_j, exactly, with relative noise `noise` on every element.
struct Product {
  int64_t M, N, K;
  V w, x, r;
  Product(int64_t m, int64_t n, int64_t k, double noise)
      : M(m),
        N(n),
        K(k),
        w(random_values(static_cast<size_t>(m * k), 7)),
        x(random_values(static_cast<size_t>(n * k), 8)),
        r(static_cast<size_t>(m * n)) {
    SplitMix64 rng(9);
    for (int64_t j = 0; j < N; ++j) {
      for (int64_t i = 0; i < M; ++i) {
        double sum = 0;
        for (int64_t k2 = 0; k2 < K; ++k2)
          sum += w[static_cast<size_t>(i * K + k2)] * x[static_cast<size_t>(j * K + k2)];
        r[static_cast<size_t>(j * M + i)] = sum * (1 + noise * rng.signed_uniform(0.0, 1.0));
      }
    }
  }
  std::string verdict(double limit, int64_t skip_row = -1) const {
    ProductCheck check(w, x, M, N, K, limit, 42);
    for (int64_t j = 0; j < N; ++j) {
      if (j != skip_row)
        check.add_row(j, std::span(r).subspan(static_cast<size_t>(j * M), static_cast<size_t>(M)));
    }
    return check.verdict();
  }
};

TEST(ProductCheck, AnHonestProductPasses) {
  const Product p(64, 48, 80, 1e-5);
  EXPECT_EQ(p.verdict(1e-6), "");
}

TEST(ProductCheck, OneWrongElementFailsAndIsNamed) {
  Product p(64, 48, 80, 1e-5);
  p.r[static_cast<size_t>(17 * 64 + 33)] += 0.05;  // r[m=33, j=17], the elements are ~3
  const std::string verdict = p.verdict(1e-6);
  EXPECT_TRUE(mentions(verdict, "r[m=33, j=17]")) << verdict;
}

TEST(ProductCheck, GroupsRowsWhenTheProductIsLargeAndStillCatchesOneElement) {
  // 640^3 multiply-adds is over the budget: rows are checked in signed groups.
  Product p(640, 640, 640, 1e-6);
  EXPECT_GT(ProductCheck(p.w, p.x, p.M, p.N, p.K, 1e-6, 1).group_size(), 1);
  EXPECT_EQ(p.verdict(1e-6), "");
  p.r[static_cast<size_t>(639 * 640 + 639)] += 1;  // the last element, where tails go wrong
  const std::string verdict = p.verdict(1e-6);
  EXPECT_TRUE(mentions(verdict, "r[m=639, j=639]")) << verdict;
}

TEST(ProductCheck, NaNFails) {
  Product p(16, 16, 16, 0);
  p.r[5] = std::nan("");
  EXPECT_TRUE(mentions(p.verdict(1), "r[m=5, j=0]")) << p.verdict(1);
}

TEST(ProductCheck, EveryRowMustBeChecked) {
  const Product p(16, 16, 16, 0);
  EXPECT_TRUE(mentions(p.verdict(1e-6, 3), "only 15 of the 16")) << p.verdict(1e-6, 3);
}

TEST(ProductCheck, BadShapesAreRefused) {
  const V w(12), x(12);
  EXPECT_THROW(ProductCheck(w, x, 3, 3, 5, 1e-6, 1), Error);
  ProductCheck check(w, x, 3, 3, 4, 1e-6, 1);
  const V row(2);
  EXPECT_THROW(check.add_row(0, row), Error);
  EXPECT_THROW(check.add_row(3, V(3)), Error);
}

}  // namespace
}  // namespace bk::verify
