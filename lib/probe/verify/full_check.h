// SPDX-License-Identifier: MIT
#pragma once
// Judging every element of a large result without recomputing it in float64: what `bkctl bench`
// uses after timing, so that one wrong element anywhere fails the test (a diagnostic tool that
// passes broken hardware is worse than none), at a cost far below the work measured.
//
// Both checks take the result row by row, as it is read back, and hold O(rows) state.
//
// The tolerance of one compared value is kSigmas x sqrt(limit) x the RMS of the reference values
// compared, `limit` being the op's NMSE limit (limits.h): NMSE bounds the mean squared relative
// error, so an honest device's deviation stays within a few sqrt(limit) of that RMS, while an
// element that is off by anything near its own size stands out. A NaN or infinity never passes;
// a limit of 0 admits only exact values.
//
// Not thread-safe; errors: Error(invalid_argument) for rows of the wrong length or out of range.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bk::verify {

inline constexpr double kSigmas = 8;

// Element-wise results (add, cpy): each element against its reference value.
class ElementCheck {
 public:
  explicit ElementCheck(double limit) : limit_(limit) {}
  // Elements `first` .. first + got.size() - 1 of the output.
  void add(int64_t first, std::span<const double> got, std::span<const double> want);
  // Empty when every element is within the tolerance; else the worst element, its value, the
  // reference's and the tolerance.
  std::string verdict() const;

 private:
  double limit_;
  double sum_squares_ = 0;
  int64_t count_ = 0;
  int64_t worst_ = -1;
  double worst_got_ = 0, worst_want_ = 0, worst_deviation_ = -1;
};

// A matrix product r[j][m] = w_m . x_j (m < M weight rows, j < N activation rows, all of length
// K; weights as stored, i.e. already rounded to their dtype). Freivalds-style: the rows m are cut
// into groups of G, each with random signs, and every signed group sum of r is compared with
// the same signed sum of weight rows dotted with x_j, computed once in float64. G is the
// smallest that keeps that under kProductCheckBudget multiply-adds, so the check costs O(M N +
// M N K / G); a wrong element changes its group's sum by its own error, diluted only by the
// noise of G elements. The worst group is then recomputed element by element to name the
// element.
inline constexpr double kProductCheckBudget = 2e8;

class ProductCheck {
 public:
  ProductCheck(std::span<const double> w, std::span<const double> x, int64_t M, int64_t N, int64_t K,
               double limit, uint64_t seed);
  void add_row(int64_t j, std::span<const double> r_row);  // row j of r: M values
  std::string verdict() const;
  int64_t group_size() const noexcept { return group_; }

 private:
  double dot_w(int64_t m, int64_t j) const;

  std::span<const double> w_, x_;
  int64_t M_, N_, K_, group_;
  double limit_;
  std::vector<double> sign_;      // M: +1 or -1
  std::vector<double> expected_;  // groups x N
  double rms_ = 0;
  int64_t rows_seen_ = 0;
  int64_t worst_group_ = -1, worst_j_ = -1;
  double worst_got_ = 0, worst_deviation_ = -1;
  std::vector<double> worst_row_;  // the row that held the worst group, to name the element
};

}  // namespace bk::verify
