// SPDX-License-Identifier: MIT
#pragma once
// TensorIndex: maps tensor addresses to dense ids with open addressing. The scheduler runs for
// every evaluated graph, so this is the one hash lookup on its hot path: a multiply, a shift
// and a short linear probe, no allocation after reset(). Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bk {

struct Tensor;

class TensorIndex {
 public:
  // Empties the index and makes room for `count` tensors at a load factor of at most 1/2.
  void reset(size_t count);
  // The id stored for t; stores `id` first when t is new.
  int32_t insert(const Tensor* t, int32_t id);
  // The id of t, or -1. Inline: every source of every node is looked up once per schedule.
  int32_t find(const Tensor* t) const noexcept {
    if (keys_.empty()) return -1;
    const size_t mask = keys_.size() - 1;
    for (size_t i = slot_of(t);; i = (i + 1) & mask) {
      if (keys_[i] == t) return ids_[i];
      if (keys_[i] == nullptr) return -1;
    }
  }

 private:
  // Fibonacci hashing: the high bits of the product mix every bit of the address.
  size_t slot_of(const Tensor* t) const noexcept {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(t) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  std::vector<const Tensor*> keys_;
  std::vector<int32_t> ids_;
  unsigned shift_ = 63;
};

}  // namespace bk
