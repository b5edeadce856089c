// SPDX-License-Identifier: MIT
#pragma once
// The one deterministic random generator of the probe: splitmix64 (Steele, Lea and Flood, 2014).
// Every random value the probe, bkctl and the conformance suite feed to a device comes from
// here, so a seed means the same numbers everywhere and on every platform (unlike std::
// distributions, whose algorithms the standard leaves to the library).
//
// A SplitMix64 is a plain value (copy it to replay a stream); not thread-safe, give each thread
// its own. Nothing here throws or allocates.

#include <cstdint>

namespace bk::verify {

// splitmix64's output function: a bijection of the 64-bit integers that mixes every input bit
// into every output bit. Distinct inputs give distinct outputs, which mem_pattern relies on.
constexpr uint64_t splitmix64_mix(uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class SplitMix64 {
 public:
  explicit constexpr SplitMix64(uint64_t seed) noexcept : state_(seed) {}

  // The next 64 random bits: the state steps by the golden-ratio increment, then is mixed.
  constexpr uint64_t next() noexcept { return splitmix64_mix(state_ += kGamma); }

  // Uniform in [0, 1), from the top 53 bits (every value a multiple of 2^-53).
  constexpr double unit() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform in [lo, hi); lo < hi.
  constexpr double uniform(double lo, double hi) noexcept { return lo + (hi - lo) * unit(); }

  // A random sign times a magnitude uniform in [lo, hi) (0 < lo < hi): values that are never
  // 0, so an output a device leaves at zero cannot match by luck. The sign is drawn first.
  constexpr double signed_uniform(double lo, double hi) noexcept {
    const bool negative = (next() >> 63) != 0;
    const double magnitude = uniform(lo, hi);
    return negative ? -magnitude : magnitude;
  }

  // Uniform in [0, n) for n > 0, by remainder: the bias, n / 2^64, is far below what the
  // callers' sizes (indices, sample positions) could show.
  constexpr uint64_t below(uint64_t n) noexcept { return next() % n; }

 private:
  static constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;
  uint64_t state_;
};

}  // namespace bk::verify
