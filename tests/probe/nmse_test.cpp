// SPDX-License-Identifier: MIT
// The one NMSE rule (probe/verify/nmse.h), edge by edge.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "bk/error.h"
#include "probe/verify/nmse.h"

namespace bk::verify {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::nan("");

using V = std::vector<double>;

Tensor output(Shape ne) {
  Tensor t;
  t.name = "r";
  t.ne = ne;
  return t;
}

const Tensor kRow = output({3, 1, 1, 1});

bool mentions(const NmseCheck& c, const std::string& s) { return c.message.find(s) != std::string::npos; }

TEST(Nmse, IsTheErrorEnergyOverTheReferenceEnergy) {
  const Tensor t = output({2, 1, 1, 1});
  // (5e-3)^2 / (3^2 + 4^2) = 1e-6
  const NmseCheck c = check_nmse(V{3.0, 4.0 + 5e-3}, V{3.0, 4.0}, 1e-5, t);
  EXPECT_TRUE(c.ok);
  EXPECT_NEAR(c.nmse, 1e-6, 1e-12);
  EXPECT_TRUE(c.message.empty());
  EXPECT_FALSE(check_nmse(V{3.0, 4.0 + 6e-3}, V{3.0, 4.0}, 1e-6, t).ok);
}

TEST(Nmse, PassesAtTheLimitItselfAndZeroAdmitsOnlyExactValues) {
  const Tensor t = output({1, 1, 1, 1});
  const double nmse = check_nmse(V{1.5}, V{1.0}, 1, t).nmse;  // 0.25
  EXPECT_TRUE(check_nmse(V{1.5}, V{1.0}, nmse, t).ok);
  EXPECT_FALSE(check_nmse(V{1.5}, V{1.0}, std::nextafter(nmse, 0.0), t).ok);
  EXPECT_TRUE(check_nmse(V{1, 2, 3}, V{1, 2, 3}, 0, kRow).ok);
  EXPECT_FALSE(check_nmse(V{1, 2, std::nextafter(3.0, 4.0)}, V{1, 2, 3}, 0, kRow).ok);
}

TEST(Nmse, NaNInGotNeverPassesAndIsNamed) {
  const NmseCheck c = check_nmse(V{1, kNaN, 3}, V{1, 2, 3}, 1e30, kRow);
  EXPECT_FALSE(c.ok);
  EXPECT_TRUE(std::isnan(c.nmse)) << "no NMSE exists";
  EXPECT_EQ(c.worst, 1u);
  EXPECT_TRUE(mentions(c, "[1, 0, 0, 0]")) << c.message;
  EXPECT_TRUE(mentions(c, "unwritten")) << c.message;
}

TEST(Nmse, InfinityInGotNeverPassesUnlessTheReferenceHasIt) {
  EXPECT_FALSE(check_nmse(V{1, kInf, 3}, V{1, 2, 3}, 1e30, kRow).ok);
  EXPECT_FALSE(check_nmse(V{1, -kInf, 3}, V{1, kInf, 3}, 1e30, kRow).ok) << "the other infinity";
}

TEST(Nmse, AMatchedInfinityAddsNothingToEitherSum) {
  EXPECT_TRUE(check_nmse(V{1, -kInf, 3}, V{1, -kInf, 3}, 0, kRow).ok);  // a masked score stays -inf
  // Only the finite elements count: 0.1^2 / (1^2 + 3^2).
  const NmseCheck c = check_nmse(V{1, -kInf, 3.1}, V{1, -kInf, 3}, 1, kRow);
  EXPECT_TRUE(c.ok);
  EXPECT_NEAR(c.nmse, 0.01 / 10, 1e-15);
}

TEST(Nmse, AnUnmatchedNonFiniteReferenceIsABrokenCase) {
  const NmseCheck inf = check_nmse(V{1, 2, 3}, V{1, kInf, 3}, 1e30, kRow);
  EXPECT_FALSE(inf.ok);
  EXPECT_TRUE(std::isnan(inf.nmse));
  EXPECT_TRUE(mentions(inf, "broken case")) << inf.message;
  EXPECT_FALSE(check_nmse(V{1, kNaN, 3}, V{1, kNaN, 3}, 1e30, kRow).ok) << "NaN equals nothing";
  EXPECT_FALSE(check_nmse(V{1, 2, 3}, V{1, kNaN, 3}, 1e30, kRow).ok);
}

TEST(Nmse, AnAllZeroReferenceTakesThePlainSumOfSquares) {
  const Tensor t = output({2, 1, 1, 1});
  EXPECT_TRUE(check_nmse(V{0, 0}, V{0, 0}, 0, t).ok);
  const NmseCheck c = check_nmse(V{0.5, 0}, V{0, 0}, 1, t);
  EXPECT_DOUBLE_EQ(c.nmse, 0.25);
  EXPECT_FALSE(check_nmse(V{0.5, 0}, V{0, 0}, 0.2, t).ok);
}

TEST(Nmse, NegativeZeroEqualsZero) {
  const Tensor t = output({2, 1, 1, 1});
  EXPECT_TRUE(check_nmse(V{-0.0, 1}, V{0.0, 1}, 0, t).ok);
  EXPECT_TRUE(check_nmse(V{0.0, 0.0}, V{-0.0, -0.0}, 0, t).ok);
  EXPECT_DOUBLE_EQ(check_nmse(V{0.5, 0}, V{-0.0, 0}, 1, t).nmse, 0.25) << "-0.0 is a zero reference";
}

TEST(Nmse, OverflowingSquaresFail) {
  const NmseCheck c = check_nmse(V{1e200, 2, 3}, V{1, 2, 3}, 1e30, kRow);
  EXPECT_FALSE(c.ok);
  EXPECT_TRUE(std::isinf(c.nmse));
}

TEST(Nmse, TheMessageNamesTheWorstElementByItsIndex) {
  const Tensor t = output({2, 2, 1, 1});
  const NmseCheck c = check_nmse(V{1, 1.01, 1.1, 1}, V{1, 1, 1, 1}, 1e-6, t);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.worst, 2u);
  EXPECT_TRUE(mentions(c, "element [0, 1, 0, 0] is 1.1 (reference 1)")) << c.message;
  EXPECT_TRUE(mentions(c, "'r'")) << c.message;
  EXPECT_TRUE(mentions(c, "exceeds the limit")) << c.message;
}

TEST(Nmse, EmptyOrMismatchedValuesAreTheCallersError) {
  const Tensor t = output({1, 1, 1, 1});
  EXPECT_THROW(check_nmse({}, {}, 1, t), Error);
  EXPECT_THROW(check_nmse(V{1, 2, 3}, V{1, 2}, 1, kRow), Error);
  EXPECT_THROW(check_nmse(V{1}, V{1, 2}, 1, kRow), Error);
}

}  // namespace
}  // namespace bk::verify
