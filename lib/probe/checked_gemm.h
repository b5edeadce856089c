// SPDX-License-Identifier: MIT
#pragma once
// A square f32 matrix multiply kept on a device, whose every result is checked without reading
// the n x n result back (algorithm-based fault tolerance, Huang and Abraham 1984): the graph
// computes out = mul_mat(W, X), then sums = mul_mat(out, V), V holding two probe vectors (all
// ones, and random signs r). So each run returns 2 x n numbers, column j's
//   sum_i r_i out[i, j]  =  sum_k (sum_i r_i W[k, i]) X[k, j],
// whose right side is computed once, in float64, from the inputs. A wrong element of `out`, a
// NaN or an infinity moves its column's sums.
//
// Two checks per run (check()):
//   - against float64: each sum within 4x the error that the graph's NMSE limit
//     (verify/limits.h) allows it: independent element errors add in quadrature, so a column
//     sum may be off by sqrt(limit) * sqrt(sum_i sum_k (W[k, i] X[k, j])^2). This is loose
//     enough for TF32 and catches gross faults;
//   - against the first run: the same inputs through the same kernels give the same bits on
//     every device bk drives (no atomics, fixed work splits), so any later sum that differs
//     from the first run's is wrong, however small the difference: the sharp check, as
//     gpu-burn compares with its first result.
//
// Memory: one device buffer of (3 n^2 + 4 n) floats. Errors are the device's (Error(out_of_memory),
// Error(device_error), ...). Not thread-safe; the Device must outlive it.

#include <memory>
#include <string>
#include <vector>

#include "bk/device.h"
#include "bk/graph.h"

namespace bk {

struct GemmCheck {
  bool ok = true;
  size_t wrong_columns = 0;         // columns whose sums failed either check
  size_t first_column = 0;          // the first of them, when !ok
  double worst_over_tolerance = 0;  // the largest |got - float64| / tolerance seen (inf for NaN)
  std::string message;              // when !ok: which column, expected, got, tolerance
};

class CheckedGemm {
 public:
  // Builds the graph for n x n x n on `device`, allocates it and writes seeded inputs. Throws
  // Error(unsupported) when the device runs no f32 mul_mat of that shape (naming why).
  CheckedGemm(Device& device, int64_t n, uint64_t seed = 7);
  ~CheckedGemm();
  CheckedGemm(const CheckedGemm&) = delete;
  CheckedGemm& operator=(const CheckedGemm&) = delete;

  int64_t size() const noexcept { return n_; }
  // Floating-point operations of one run: the multiply (2 n^3) and the sums (4 n^2).
  double flops() const noexcept;
  static size_t bytes_for(int64_t n) noexcept;

  // One run on the stream, waited for; returns its wall seconds.
  double run(Backend& backend);
  // Reads the sums of the last run and judges them (see above). The first call also records
  // the sums every later run must reproduce; when the first run is wrong against float64,
  // later runs are judged against float64 alone.
  GemmCheck check();

 private:
  Device& device_;
  int64_t n_;
  GraphBuilder builder_;
  Graph graph_;
  Tensor* sums_ = nullptr;
  std::unique_ptr<Buffer> buffer_;
  std::vector<double> expected_;   // float64 sums, 2 per column
  std::vector<double> tolerance_;  // one per column
  std::vector<float> first_;       // the first correct run's sums, bit for bit
};

// The matmul to burn a device in with, built: n doubles from 256 while a run of n takes less
// than `min_seconds` (launch and synchronisation then hardly count), 2n <= max_n and
// bytes_for(2n) fits `max_bytes`. Times each size on `backend` (a warm-up run, then one).
std::unique_ptr<CheckedGemm> sized_gemm(Device& device, Backend& backend, double min_seconds,
                                        size_t max_bytes, int64_t max_n = 8192);

}  // namespace bk
