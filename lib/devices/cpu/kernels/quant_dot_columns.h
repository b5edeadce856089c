// SPDX-License-Identifier: MIT
#pragma once
// The column loop the fused quantized kernels share (quant_dot_avx2.cpp, quant_dot_avx512.cpp):
// a decoded weight block serves up to four activation columns, so the columns go four at a time
// and the rest in one narrower pass; and how far ahead they prefetch W. Included only by those
// units; internal linkage, as kernel_table.h requires of what tier units instantiate.

#include <immintrin.h>

#include <cstdint>
#include <type_traits>

#include "devices/cpu/kernels/kernel_table.h"

namespace bk {
namespace {

// How far ahead of the step at hand the kernels fetch W into L1: the hardware prefetchers alone
// left them waiting on W when it streams from memory, and fetching whole rows ahead in a burst
// stalled on the full line-fill buffers (docs/performance.md, "prefetching W"). The distance
// measured best of 1-4 KiB. Twice as far ahead they fetch it into L2 as well, which the L2's
// deeper queue of misses serves: W mapped from a file in 4 KiB pages, which the hardware
// prefetchers do not cross, streamed 15-18% faster (docs/performance.md, 2026-12-07, fifth
// session); from huge pages it changed nothing.
constexpr int64_t kQuantPrefetchBytes = 2304;

// The prefetches for the 64 bytes of W at p.
inline void prefetch_w(const uint8_t* p) {
  _mm_prefetch(reinterpret_cast<const char*>(p + kQuantPrefetchBytes), _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(p + 2 * kQuantPrefetchBytes), _MM_HINT_T1);
}

// Calls rows(std::integral_constant<int, C>, x of the first column, c of the first column) for
// C = 4 columns at a time out of n, then once for the rest.
template <typename Rows>
inline void for_column_groups(int64_t n, const XBlock16* x, int64_t x_stride, float* c, int64_t ldc,
                              Rows rows) {
  for (int64_t i = 0; i < n; i += 4) {
    const XBlock16* xi = x + i * x_stride;
    float* ci = c + i * ldc;
    switch (n - i < 4 ? n - i : 4) {
      case 4:
        rows(std::integral_constant<int, 4>{}, xi, ci);
        break;
      case 3:
        rows(std::integral_constant<int, 3>{}, xi, ci);
        break;
      case 2:
        rows(std::integral_constant<int, 2>{}, xi, ci);
        break;
      default:
        rows(std::integral_constant<int, 1>{}, xi, ci);
        break;
    }
  }
}

}  // namespace
}  // namespace bk
