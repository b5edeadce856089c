#pragma once
// Small shared pieces of the bench tests: a seeded generator for inputs and the guard that
// turns a device failure into a result with status error (or unsupported) instead of an exit.

#include <cstdint>
#include <new>

#include "bk/error.h"
#include "commands/bench/cli.h"

namespace bkctl {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() noexcept {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) noexcept { return next() % n; }
  // ~U(0.1, 1) with a random sign: never zero, so that a kernel that writes nothing is caught.
  double nonzero() noexcept {
    const double u = 0.1 + 0.9 * static_cast<double>(next() >> 11) / 9007199254740992.0;
    return (next() & 1) ? u : -u;
  }

 private:
  uint64_t state_;
};

template <typename F>
BenchResult guarded(BenchResult& result, F&& body) {
  try {
    body();
  } catch (const bk::Error& e) {
    result.status = e.code() == bk::ErrorCode::unsupported ? BenchStatus::unsupported : BenchStatus::error;
    result.reason = e.what();
    result.stats = {};
  } catch (const std::bad_alloc&) {
    result.status = BenchStatus::error;
    result.reason = "out of host memory";
    result.stats = {};
  }
  return result;
}

}  // namespace bkctl
