// SPDX-License-Identifier: MIT
#include "probe/verify/full_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bk/error.h"
#include "probe/verify/rng.h"

namespace bk::verify {
namespace {

double tolerance(double limit, double sum_squares, int64_t count) {
  const double rms = count > 0 ? std::sqrt(sum_squares / static_cast<double>(count)) : 0;
  return kSigmas * std::sqrt(limit) * rms;
}

// Non-finite deviations (NaN, inf) compare false here and so count as the worst.
bool worse(double deviation, double than) { return !(deviation <= than); }

}  // namespace

void ElementCheck::add(int64_t first, std::span<const double> got, std::span<const double> want) {
  if (got.size() != want.size()) throw Error(ErrorCode::invalid_argument, "ElementCheck: sizes differ");
  for (size_t i = 0; i < got.size(); ++i) {
    sum_squares_ += want[i] * want[i];
    const double deviation = std::abs(got[i] - want[i]);
    if (worse(deviation, worst_deviation_) && (worst_ < 0 || !std::isnan(worst_deviation_))) {
      worst_ = first + static_cast<int64_t>(i);
      worst_got_ = got[i];
      worst_want_ = want[i];
      worst_deviation_ = deviation;
    }
  }
  count_ += static_cast<int64_t>(got.size());
}

std::string ElementCheck::verdict() const {
  const double tol = tolerance(limit_, sum_squares_, count_);
  if (worst_ < 0 || !worse(worst_deviation_, tol)) return {};
  return fmt::format("element {} is {:.9g}, the reference {:.9g} (off by {:.3g}; tolerance {:.3g})", worst_,
                     worst_got_, worst_want_, worst_deviation_, tol);
}

ProductCheck::ProductCheck(std::span<const double> w, std::span<const double> x, int64_t M, int64_t N,
                           int64_t K, double limit, uint64_t seed)
    : w_(w), x_(x), M_(M), N_(N), K_(K), limit_(limit) {
  if (M <= 0 || N <= 0 || K <= 0 || w.size() != static_cast<size_t>(M * K) ||
      x.size() != static_cast<size_t>(N * K)) {
    throw Error(ErrorCode::invalid_argument, "ProductCheck: operand sizes do not match M, N, K");
  }
  const double work = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  group_ = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(work / kProductCheckBudget)), 1, M);
  const int64_t groups = (M + group_ - 1) / group_;
  SplitMix64 rng(seed);
  sign_.resize(static_cast<size_t>(M));
  for (double& s : sign_) s = rng.below(2) == 0 ? -1.0 : 1.0;
  // c_g = sum over m in g of sign_m w_m, then expected[g][j] = c_g . x_j.
  std::vector<double> c(static_cast<size_t>(K));
  expected_.assign(static_cast<size_t>(groups * N), 0);
  double sum_squares = 0;
  for (int64_t g = 0; g < groups; ++g) {
    std::fill(c.begin(), c.end(), 0.0);
    for (int64_t m = g * group_; m < std::min(M, (g + 1) * group_); ++m) {
      const double* row = w.data() + m * K;
      for (int64_t k = 0; k < K; ++k) c[static_cast<size_t>(k)] += sign_[static_cast<size_t>(m)] * row[k];
    }
    for (int64_t j = 0; j < N; ++j) {
      const double* xj = x.data() + j * K;
      double e = 0;
      for (int64_t k = 0; k < K; ++k) e += c[static_cast<size_t>(k)] * xj[k];
      expected_[static_cast<size_t>(g * N + j)] = e;
      sum_squares += e * e;
    }
  }
  rms_ = std::sqrt(sum_squares / static_cast<double>(groups * N));
}

void ProductCheck::add_row(int64_t j, std::span<const double> r_row) {
  if (j < 0 || j >= N_ || r_row.size() != static_cast<size_t>(M_)) {
    throw Error(ErrorCode::invalid_argument, "ProductCheck: row out of range or of the wrong length");
  }
  ++rows_seen_;
  const int64_t groups = (M_ + group_ - 1) / group_;
  for (int64_t g = 0; g < groups; ++g) {
    double sum = 0;
    for (int64_t m = g * group_; m < std::min(M_, (g + 1) * group_); ++m)
      sum += sign_[static_cast<size_t>(m)] * r_row[static_cast<size_t>(m)];
    const double deviation = std::abs(sum - expected_[static_cast<size_t>(g * N_ + j)]);
    if (worse(deviation, worst_deviation_) && (worst_group_ < 0 || !std::isnan(worst_deviation_))) {
      worst_group_ = g;
      worst_j_ = j;
      worst_got_ = sum;
      worst_deviation_ = deviation;
      worst_row_.assign(r_row.begin(), r_row.end());
    }
  }
}

double ProductCheck::dot_w(int64_t m, int64_t j) const {
  double sum = 0;
  for (int64_t k = 0; k < K_; ++k)
    sum += w_[static_cast<size_t>(m * K_ + k)] * x_[static_cast<size_t>(j * K_ + k)];
  return sum;
}

std::string ProductCheck::verdict() const {
  if (rows_seen_ != N_) return fmt::format("only {} of the {} result rows were checked", rows_seen_, N_);
  const double tol = kSigmas * std::sqrt(limit_) * rms_;
  if (worst_group_ < 0 || !worse(worst_deviation_, tol)) return {};
  // Name the element: the one in the worst group furthest from its exact value.
  int64_t culprit = worst_group_ * group_;
  double culprit_off = -1, culprit_got = 0, culprit_want = 0;
  for (int64_t m = worst_group_ * group_; m < std::min(M_, (worst_group_ + 1) * group_); ++m) {
    const double want = dot_w(m, worst_j_), got = worst_row_[static_cast<size_t>(m)];
    const double off = std::abs(got - want);
    if (worse(off, culprit_off) && (culprit_off < 0 || !std::isnan(culprit_off))) {
      culprit = m;
      culprit_off = off;
      culprit_got = got;
      culprit_want = want;
    }
  }
  return fmt::format(
      "r[m={}, j={}] is {:.9g}, the reference {:.9g}: the signed sum of rows m {}..{} at j={} is off by "
      "{:.3g} "
      "(tolerance {:.3g})",
      culprit, worst_j_, culprit_got, culprit_want, worst_group_ * group_,
      std::min(M_, (worst_group_ + 1) * group_) - 1, worst_j_, worst_deviation_, tol);
}

}  // namespace bk::verify
