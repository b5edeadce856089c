// SPDX-License-Identifier: MIT
// get_rows and the copies (cpy, cast, cont): data movement, exact except for the rounding of a
// narrowing conversion.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "bk/error.h"
#include "devices/cpu/kernels/op_kernels.h"
#include "devices/cpu/kernels/row_io.h"

namespace bk {
namespace {

int32_t gather_index(const Tensor& node, const Tensor& table, const Tensor& ids, RowIndex r) {
  int32_t v;
  std::memcpy(&v, element_ptr(ids, r.i1, {r.i2, r.i3, 0}), sizeof v);
  if (v < 0 || v >= table.ne[1]) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("CPU get_rows (node '{}'): index {} at [{}, {}, {}] of '{}' is outside the {} rows of "
                    "table '{}' {}; indices must lie in [0, {})",
                    node.name, v, r.i1, r.i2, r.i3, ids.name, table.ne[1], table.name, table.shape_string(),
                    table.ne[1]));
  }
  return v;
}

// Element i (logical order) of t.
std::byte* flat_element(const Tensor& t, int64_t i) {
  const int64_t i0 = i % t.ne[0];
  const int64_t rest = i / t.ne[0];
  return element_ptr(t, i0, row_index(t.ne, rest));
}

// Same shape: row segments, converted through f32 unless the dtypes match (bytes are copied
// then, whatever the layout).
void copy_segment(const CpuKernels& k, const Tensor& src, const Tensor& dst, RowIndex r, int64_t i0,
                  int64_t n, float* scratch) {
  const size_t ss = dtype_size(src.type), ds = dtype_size(dst.type);
  const std::byte* s = element_ptr(src, i0, r);
  std::byte* d = element_ptr(dst, i0, r);
  if (src.nb[0] == ss && dst.nb[0] == ds) {
    convert_contiguous(k, src.type, s, dst.type, d, n);
  } else if (src.type == dst.type) {
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(d + static_cast<size_t>(i) * dst.nb[0], s + static_cast<size_t>(i) * src.nb[0], ss);
  } else {
    write_row_f32(k, dst, r, i0, n, read_row_f32(k, src, r, i0, n, scratch));
  }
}

void copy_same_shape(KernelContext& ctx, const Tensor& src, const Tensor& dst) {
  const int64_t len = std::min<int64_t>(std::max<int64_t>(dst.ne[0], 1), kRowSegment);
  const int64_t per_row = (dst.ne[0] + len - 1) / len;
  const int64_t units = per_row * dst.nrows();
  const int64_t tasks = task_count(units, len, ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int thread) {
    const Range range = split_range(units, tasks, task);
    for (int64_t u = range.begin; u < range.end; ++u) {
      const int64_t i0 = (u % per_row) * len;
      copy_segment(ctx.k(), src, dst, row_index(dst.ne, u / per_row), i0, std::min(len, dst.ne[0] - i0),
                   thread_scratch(ctx, thread, len, 1, 0));
    }
  });
}

// Different shapes: elements pair up in logical order.
void copy_reshaped(KernelContext& ctx, const Tensor& src, const Tensor& dst) {
  const int64_t n = dst.nelements();
  const bool flat = src.is_contiguous() && dst.is_contiguous();
  const int64_t tasks = task_count((n + kRowSegment - 1) / kRowSegment, kRowSegment, ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int /*thread*/) {
    const Range range = split_range(n, tasks, task);
    if (flat) {
      convert_contiguous(ctx.k(), src.type, flat_element(src, range.begin), dst.type,
                         flat_element(dst, range.begin), range.end - range.begin);
      return;
    }
    for (int64_t i = range.begin; i < range.end; ++i) {
      convert(src.type, flat_element(src, i), dst.type, flat_element(dst, i), 1);
    }
  });
}

}  // namespace

size_t cpu_copy_work_size(const Tensor& node, const CpuKernels& /*k*/, int threads) {
  return static_cast<size_t>(threads) *
         scratch_block_bytes(std::min<int64_t>(std::max<int64_t>(node.ne[0], 1), kRowSegment));
}

void cpu_op_copy(KernelContext& ctx, const Tensor& node) {
  const Tensor& src = *node.src[0];
  if (same_shape(src, node)) {
    copy_same_shape(ctx, src, node);
  } else {
    copy_reshaped(ctx, src, node);
  }
}

void cpu_op_get_rows(KernelContext& ctx, const Tensor& node) {
  const Tensor& table = *node.src[0];
  const Tensor& ids = *node.src[1];
  const int64_t n = node.ne[0];
  const int64_t rows = node.nrows();
  const int64_t tasks = task_count(rows, n, ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int thread) {
    const Range range = split_range(rows, tasks, task);
    for (int64_t i = range.begin; i < range.end; ++i) {
      const RowIndex r = row_index(node.ne, i);
      const RowIndex from{gather_index(node, table, ids, r), r.i2, r.i3};
      const float* values = read_row_f32(ctx.k(), table, from, 0, n, thread_scratch(ctx, thread, n, 1, 0));
      write_row_f32(ctx.k(), node, r, 0, n, values);
    }
  });
}

}  // namespace bk
