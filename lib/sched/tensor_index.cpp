// SPDX-License-Identifier: MIT
#include "sched/tensor_index.h"

#include <bit>

namespace bk {

void TensorIndex::reset(size_t count) {
  const size_t slots = std::bit_ceil(count * 2 + 2);
  shift_ = static_cast<unsigned>(64 - std::countr_zero(slots));
  keys_.assign(slots, nullptr);
  ids_.resize(slots);
}

int32_t TensorIndex::insert(const Tensor* t, int32_t id) {
  const size_t mask = keys_.size() - 1;
  for (size_t i = slot_of(t);; i = (i + 1) & mask) {
    if (keys_[i] == t) return ids_[i];
    if (keys_[i] == nullptr) {
      keys_[i] = t;
      ids_[i] = id;
      return id;
    }
  }
}

}  // namespace bk
