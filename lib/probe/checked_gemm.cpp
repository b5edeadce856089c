// SPDX-License-Identifier: MIT
#include "probe/checked_gemm.h"

#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

#include "bk/error.h"
#include "bk/ops.h"
#include "probe/graph_buffer.h"
#include "probe/verify/limits.h"
#include "probe/verify/rng.h"

namespace bk {
namespace {

// Tolerances are this many times the error the NMSE limit allows a column sum.
constexpr double kToleranceFactor = 4;
constexpr size_t kProbes = 2;  // ones, random signs

std::vector<float> uniform_matrix(int64_t n, uint64_t seed) {
  verify::SplitMix64 rng(seed);
  std::vector<float> values(static_cast<size_t>(n * n));
  for (float& v : values) v = static_cast<float>(rng.uniform(-1, 1));
  return values;
}

bool same_bits(float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }

}  // namespace

CheckedGemm::CheckedGemm(Device& device, int64_t n, uint64_t seed) : device_(device), n_(n) {
  Tensor& w = builder_.input(DType::F32, {n, n, 1, 1}, "w");
  Tensor& x = builder_.input(DType::F32, {n, n, 1, 1}, "x");
  Tensor& probes = builder_.input(DType::F32, {n, static_cast<int64_t>(kProbes), 1, 1}, "probes");
  Tensor& out = ops::mul_mat(builder_, w, x);
  sums_ = &ops::mul_mat(builder_, out, probes);
  graph_ = builder_.build({sums_});
  for (const Tensor* node : graph_.nodes()) {
    if (!device.supports_op(*node)) {
      throw Error(ErrorCode::unsupported, fmt::format("{} cannot run the checked {}^3 f32 matmul: {}",
                                                      device.name(), n, device.unsupported_reason(*node)));
    }
  }
  buffer_ = place_graph_poisoned(device.buffer_type(), graph_);
  const size_t un = static_cast<size_t>(n);

  // probes: column 0 all ones, column 1 random signs.
  std::vector<float> v(un * kProbes, 1.0f);
  verify::SplitMix64 signs(seed ^ 0x5157);
  for (size_t i = un; i < v.size(); ++i) v[i] = (signs.next() >> 63) != 0 ? -1.0f : 1.0f;
  probes.buffer->set_tensor(probes, v.data(), 0, v.size() * sizeof(float));

  // From W: a_p[k] = sum_i v_p[i] W[k, i] and w2[k] = sum_i W[k, i]^2 (W[k, i] is w[i * n + k]).
  std::vector<double> a(un * kProbes, 0.0), w2(un, 0.0);
  {
    const std::vector<float> wv = uniform_matrix(n, seed);
    for (size_t i = 0; i < un; ++i) {
      const float* row = &wv[i * un];
      for (size_t k = 0; k < un; ++k) {
        const double value = row[k];
        for (size_t p = 0; p < kProbes; ++p) a[p * un + k] += v[p * un + i] * value;
        w2[k] += value * value;
      }
    }
    w.buffer->set_tensor(w, wv.data(), 0, wv.size() * sizeof(float));
  }
  // From X: expected[p * n + j] = sum_k a_p[k] X[k, j]; the tolerance from sum_k X[k, j]^2 w2[k].
  const double limit = verify::graph_limit(graph_);
  expected_.assign(un * kProbes, 0.0);
  tolerance_.assign(un, 0.0);
  const std::vector<float> xv = uniform_matrix(n, seed + 1);
  for (size_t j = 0; j < un; ++j) {
    const float* column = &xv[j * un];
    double energy = 0;
    for (size_t k = 0; k < un; ++k) {
      const double value = column[k];
      for (size_t p = 0; p < kProbes; ++p) expected_[p * un + j] += a[p * un + k] * value;
      energy += value * value * w2[k];
    }
    tolerance_[j] = kToleranceFactor * std::sqrt(limit * energy);
  }
  x.buffer->set_tensor(x, xv.data(), 0, xv.size() * sizeof(float));
}

CheckedGemm::~CheckedGemm() = default;

double CheckedGemm::flops() const noexcept {
  const double n = static_cast<double>(n_);
  return 2 * n * n * n + 2 * static_cast<double>(kProbes) * n * n;
}

size_t CheckedGemm::bytes_for(int64_t n) noexcept {
  const size_t un = static_cast<size_t>(n);
  return (3 * un * un + 2 * kProbes * un) * sizeof(float);
}

double CheckedGemm::run(Backend& backend) {
  const auto start = std::chrono::steady_clock::now();
  backend.compute(graph_);
  backend.synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

GemmCheck CheckedGemm::check() {
  const size_t un = static_cast<size_t>(n_);
  std::vector<float> got(un * kProbes);
  sums_->buffer->get_tensor(*sums_, got.data(), 0, got.size() * sizeof(float));
  GemmCheck result;
  for (size_t j = 0; j < un; ++j) {
    bool column_ok = true;
    for (size_t p = 0; p < kProbes; ++p) {
      const size_t at = p * un + j;
      const double error = std::fabs(got[at] - expected_[at]);
      const double ratio =
          std::isfinite(error) ? error / tolerance_[j] : std::numeric_limits<double>::infinity();
      result.worst_over_tolerance = std::max(result.worst_over_tolerance, ratio);
      const bool near = error <= tolerance_[j];
      const bool repeated = first_.empty() || same_bits(got[at], first_[at]);
      if (near && repeated) continue;
      if (column_ok && result.ok) {
        result.message =
            near ? fmt::format(
                       "column {}: a checksum was {:.9g} where the first run gave {:.9g} from the same "
                       "inputs",
                       j, got[at], first_[at])
                 : fmt::format("column {}: a checksum was {:.9g}, float64 says {:.9g} (tolerance {:.3g})", j,
                               got[at], expected_[at], tolerance_[j]);
        result.first_column = j;
      }
      column_ok = false;
      result.ok = false;
    }
    result.wrong_columns += !column_ok;
  }
  if (result.ok && first_.empty()) first_ = std::move(got);
  return result;
}

std::unique_ptr<CheckedGemm> sized_gemm(Device& device, Backend& backend, double min_seconds,
                                        size_t max_bytes, int64_t max_n) {
  auto gemm = std::make_unique<CheckedGemm>(device, 256);
  while (true) {
    gemm->run(backend);  // warm-up: pipelines, caches, first-touch
    const int64_t n = gemm->size();
    if (gemm->run(backend) >= min_seconds || n * 2 > max_n || CheckedGemm::bytes_for(n * 2) > max_bytes) {
      return gemm;
    }
    gemm.reset();  // its memory, before the next size takes more
    gemm = std::make_unique<CheckedGemm>(device, n * 2);
  }
}

}  // namespace bk
