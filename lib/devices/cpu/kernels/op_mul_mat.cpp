// SPDX-License-Identifier: MIT
// mul_mat: batches (with weight broadcasting over dims 2-3), gathers of strided operands into
// contiguous f32 rows, and the choice between the dot-product path (few columns: streams W once)
// and the packed, blocked GEMM (mul_mat_gemm.h). Quantized weights take the fused decode-and-dot
// kernels at few columns (mul_mat_quant.h); wider, the integer tiles where the tier has them for
// the type (mul_mat_quant.h), else they are decoded to f32 and run the f32 paths: on the dot
// path each task decodes its own rows just before it reads them, for the GEMM a panel of rows at
// a time (on the amx tier, the panels as bf16 on tiles).
#include <algorithm>
#include <limits>

#include "devices/cpu/kernels/mul_mat_amx.h"
#include "devices/cpu/kernels/mul_mat_gemm.h"
#include "devices/cpu/kernels/mul_mat_quant.h"
#include "devices/cpu/kernels/op_kernels.h"
#include "devices/cpu/kernels/row_io.h"

namespace bk {
namespace {

// The dot-product path's widest step, in columns (activation rows): past it x's columns go in
// chunks (see dot_path_max_columns; a streaming GEMM packing W panel by panel was no faster at
// 8-32 columns either).
constexpr int64_t kGemvMaxColumns = 32;
constexpr int64_t kGemvRowsPerTask = 64;

// Where the tier has gemv_packed, f32 weights from 5 columns to its max_columns (32 on avx512,
// 16 on avx2) take it, with the phases that waste the fewest lanes for the fewest FMAs: 2 (8 X
// rows x 2 elements a vector) at 5-8 and 17-24 columns, 1 (16 rows x 1) at 9-16 and 25-32.
// Every choice feeds each FMA from one broadcast weight register and one X register, the
// pattern that keeps the FMA units busy where the dot tiles' 2 x 8 pattern cannot. Returns 0
// where the dot path runs: one column; 2-4, where both stream W at the memory bandwidth and
// phases 4 gained nothing; and past max_columns. The measurements behind each range are in
// docs/performance.md ("a packed-column decode path", "two k elements of 8 X rows a vector",
// and 2026-12-07 for avx2).
int packed_phases(int64_t n, int64_t max_columns) {
  if (n <= 4 || n > max_columns) return 0;
  return n <= 8 || (n > 16 && n <= 24) ? 2 : 1;
}

// The avx512 dot path's tiles for more than four columns read eight X rows in step from L1
// (48 KiB, 64 sets of 64 bytes). Rows a multiple of 4 KiB apart (k = 1024, 4096...) would all
// fall in the same sets and evict each other, so from this k on the X rows are copied to a stride
// of 128 floats past a multiple of 1024: a chunk of k (512 there) of eight rows then covers every
// set evenly. The copy is a few hundred KiB against the weight's tens of MiB.
constexpr int64_t kPadXMinK = 512;
constexpr int64_t kPadXMinColumns = 5;

int64_t padded_x_stride(int64_t k) { return k + ((128 - k) % 1024 + 1024) % 1024; }

size_t packed_floats(int64_t n, int64_t k, int phases) {
  const int64_t rows = kPackedLanes / phases;  // X rows per group
  const int64_t groups = (n + rows - 1) / rows;
  return static_cast<size_t>(groups * kPackedLanes * ((k + phases - 1) / phases));
}

// x's columns on the dot path in chunks of kGemvMaxColumns, all but the last one full; each is
// packed for gemv_packed with the phases its width wants (0: the dot tiles read x as it is). The
// packed floats of chunk c of batch b start at xt + at(b, c).
struct ColumnChunks {
  int64_t n = 0;
  int full_phases = 0, last_phases = 0;
  size_t full_floats = 0, last_floats = 0;

  int64_t count() const { return (n + kGemvMaxColumns - 1) / kGemvMaxColumns; }
  int64_t begin(int64_t c) const { return c * kGemvMaxColumns; }
  int64_t width(int64_t c) const { return std::min(kGemvMaxColumns, n - begin(c)); }
  int phases(int64_t c) const { return c + 1 < count() ? full_phases : last_phases; }
  size_t batch_floats() const { return static_cast<size_t>(count() - 1) * full_floats + last_floats; }
  size_t at(int64_t b, int64_t c) const {
    return static_cast<size_t>(b) * batch_floats() + static_cast<size_t>(c) * full_floats;
  }
  bool packed() const { return full_phases != 0 || last_phases != 0; }
  // Whether a chunk of at least kPadXMinColumns columns goes to the dot tiles.
  bool tiles_read_many_rows() const {
    return (count() > 1 && full_phases == 0) || (last_phases == 0 && width(count() - 1) >= kPadXMinColumns);
  }
};

// packable: the tier has gemv_packed and the dot path reads f32 weights.
ColumnChunks column_chunks(int64_t n, int64_t k, const CpuKernels& t, bool packable) {
  ColumnChunks ch;
  ch.n = n;
  if (!packable || n == 0) return ch;
  const auto floats = [&](int64_t width, int phases) {
    return phases == 0 ? 0 : packed_floats(width, k, phases);
  };
  const int64_t last = ch.width(ch.count() - 1);
  ch.full_phases = packed_phases(std::min(n, kGemvMaxColumns), t.gemv_packed.max_columns);
  ch.last_phases = packed_phases(last, t.gemv_packed.max_columns);
  ch.full_floats = floats(std::min(n, kGemvMaxColumns), ch.full_phases);
  ch.last_floats = floats(last, ch.last_phases);
  return ch;
}

// Up to how many columns the dot path runs; past it, the GEMM. Past kGemvMaxColumns the dot path
// takes x's columns in chunks, each task reading its W rows from the cache again for every chunk
// after the first, where the GEMM packs W into its panels. Measured against the GEMM
// (docs/performance.md, "decoded rows past 32 columns", "f32 weights past 32 columns"):
// quantized weights (decoded once per task) faster up to 512 columns but for one case within a
// few percent, f32 up to 128 and f16 and bf16 (converted as the dot tiles read them) up to 64 on
// 1024- to 14336-wide weights. What the AMX GEMM takes keeps kGemvMaxColumns. Quantized weights
// with integer tiles (mul_mat_quant.h) take them at any width against the f32 GEMM, and up to
// 192 columns against the AMX GEMM, which is faster from 256 (docs/performance.md, "integer
// tiles").
int64_t dot_path_max_columns(DType w, bool decoded, bool tiles, bool amx_gemm) {
  if (tiles) return amx_gemm ? 192 : std::numeric_limits<int64_t>::max();
  if (amx_gemm) return kGemvMaxColumns;
  if (decoded) return 512;
  return w == DType::F32 ? 128 : 64;
}

// Rows of a quantized W decoded per panel: bounds the work buffer (256 rows of k floats) while
// leaving each panel enough rows for the GEMM's tiles and the threads.
constexpr int64_t kQuantPanelRows = 256;

// A thread's rows of a quantized W decoded for the dot path: one task's rows of k floats.
size_t decoded_rows_bytes(int64_t k) {
  return align_up(static_cast<size_t>(kGemvRowsPerTask * k) * sizeof(float));
}

WeightType weight_type(DType t) {
  return t == DType::F16 ? WeightType::f16 : t == DType::BF16 ? WeightType::bf16 : WeightType::f32;
}

// Where the work buffer's parts go, and which path runs.
struct MulMatLayout {
  bool gather_w = false;      // w's rows are strided: copied to contiguous f32 first
  bool quant_dot = false;     // w is quantized, few columns: the fused kernels, x quantized at xq_offset
  bool quant_tile = false;    // w is quantized, the dot path's columns, and the tier has integer tiles
                              // for it: x quantized and packed, w decoded to int16, all at xq_offset
  bool quant_rows = false;    // w is quantized, the dot path's columns, no tiles: each task decodes its
                              // rows to f32 in its thread's part of w_offset
  bool quant_panels = false;  // w is quantized, the GEMM's columns: decoded panel by panel to f32 at
                              // w_offset (and, for AMX, converted to bf16 at w16_offset)
  bool gather_x = false;
  ColumnChunks chunks;  // the dot path's columns; packed chunks go to xt_offset (kernel_table.h)
  bool pad_x = false;   // x is copied to padded_x_stride() rows for the dot path (implies gather_x)
  bool gemm = false;
  bool amx = false;  // the gemm runs on AMX tiles (bf16 or quantized weights, tier amx)
  size_t w_offset = 0, w16_offset = 0, x_offset = 0, xt_offset = 0, xq_offset = 0, gemm_offset = 0, total = 0;
};

MulMatLayout layout_of(const Tensor& node, const CpuKernels& k, int threads) {
  const Tensor& w = *node.src[0];
  const Tensor& x = *node.src[1];
  MulMatLayout l;
  l.quant_dot = cpu_quant_dot_applies(w, x);
  const bool decoded = is_quantized(w.type) && !l.quant_dot;
  l.gather_w = !is_quantized(w.type) && w.nb[0] != dtype_size(w.type);
  // Quantized panels go to AMX tiles as bf16: the rounding (~2^-9 of each decoded weight, as for
  // the activations) stays far inside the quantized limit (probe/verify/limits.h).
  const bool amx_applies =
      !l.gather_w && cpu_amx_applies(k, decoded ? WeightType::bf16 : weight_type(w.type));
  const bool tiles = decoded && cpu_quant_tile_applies(k, w, x);
  l.gemm = x.ne[1] > dot_path_max_columns(w.type, decoded, tiles, amx_applies);
  l.amx = l.gemm && amx_applies;
  l.quant_tile = tiles && !l.gemm;
  l.quant_rows = decoded && !l.gemm && !tiles;
  l.quant_panels = decoded && l.gemm;
  const bool f32_w = w.type == DType::F32 || decoded;  // what the kernels see
  const int64_t w_rows = l.quant_panels ? std::min(kQuantPanelRows, w.ne[1]) : w.ne[1];
  const bool f32_dot = !l.gemm && !l.quant_dot && !l.quant_tile;  // the f32 kernels' dot path
  if (f32_dot) l.chunks = column_chunks(x.ne[1], x.ne[0], k, f32_w && k.gemv_packed.pack != nullptr);
  l.pad_x = f32_dot && l.chunks.tiles_read_many_rows() && x.ne[0] >= kPadXMinK;
  l.gather_x = x.nb[0] != sizeof(float) || l.pad_x;
  const auto panel_elements = static_cast<size_t>(w_rows * w.ne[2] * w.ne[3] * w.ne[0]);
  if (l.gather_w || l.quant_panels) {
    l.w_offset = l.total;
    l.total += align_up(panel_elements * sizeof(float));
  }
  if (l.quant_rows) {
    l.w_offset = l.total;
    l.total += static_cast<size_t>(threads) * decoded_rows_bytes(w.ne[0]);
  }
  if (l.quant_panels && l.amx) {
    l.w16_offset = l.total;
    l.total += align_up(panel_elements * sizeof(uint16_t));
  }
  if (l.gather_x) {
    l.x_offset = l.total;
    const int64_t row = l.pad_x ? padded_x_stride(x.ne[0]) : x.ne[0];
    l.total += align_up(static_cast<size_t>(x.nrows() * row) * sizeof(float));
  }
  if (l.quant_dot || l.quant_tile) {
    l.xq_offset = l.total;
    l.total += l.quant_dot ? cpu_quant_dot_work_size(x) : cpu_quant_tile_work_size(w, x, threads);
  }
  if (l.chunks.packed()) {
    l.xt_offset = l.total;
    l.total += align_up(static_cast<size_t>(x.ne[2] * x.ne[3]) * l.chunks.batch_floats() * sizeof(float));
  }
  if (l.gemm) {
    l.gemm_offset = l.total;
    l.total += l.amx ? cpu_amx_work_size(w_rows, x.ne[1], w.ne[0])
                     : cpu_gemm_work_size(k.gemm, w_rows, x.ne[1], w.ne[0]);
  }
  return l;
}

// An f32 copy of t in dst, made in parallel, with rows row_floats apart (at least t.ne[0]);
// returns the tensor describing it.
Tensor gather_f32(KernelContext& ctx, const Tensor& t, std::byte* dst, int64_t row_floats) {
  Tensor c = t;
  c.type = DType::F32;
  c.nb = packed_strides(DType::F32, t.ne);
  c.nb[1] = static_cast<size_t>(row_floats) * sizeof(float);
  c.nb[2] = c.nb[1] * static_cast<size_t>(t.ne[1]);
  c.nb[3] = c.nb[2] * static_cast<size_t>(t.ne[2]);
  c.data = dst;
  const int64_t rows = t.nrows();
  const int64_t tasks = task_count(rows, t.ne[0], ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int) {
    const Range r = split_range(rows, tasks, task);
    for (int64_t i = r.begin; i < r.end; ++i) {
      const RowIndex ri = row_index(t.ne, i);
      auto* row = reinterpret_cast<float*>(element_ptr(c, 0, ri));
      const float* src = read_row_f32(ctx.k(), t, ri, 0, t.ne[0], row);
      if (src != row) std::copy_n(src, t.ne[0], row);  // a direct row is read in place
    }
  });
  return c;
}

// A packed f32 tensor as packed bf16 in dst (round to nearest even), converted in parallel.
Tensor to_bf16(KernelContext& ctx, const Tensor& t, std::byte* dst) {
  Tensor c = t;
  c.type = DType::BF16;
  c.nb = packed_strides(DType::BF16, t.ne);
  c.data = dst;
  const int64_t rows = t.nrows();
  const int64_t tasks = task_count(rows, t.ne[0], ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int) {
    const Range r = split_range(rows, tasks, task);
    const int64_t begin = r.begin * t.ne[0], count = (r.end - r.begin) * t.ne[0];
    ctx.k().f32_to_bf16(static_cast<const float*>(t.data) + begin, reinterpret_cast<uint16_t*>(dst) + begin,
                        count);
  });
  return c;
}

// Row j of the w batch that serves x batch (c2, c3) (w broadcast over dims 2-3).
RowIndex w_row(const Tensor& w, const Tensor& x, int64_t j, int64_t c2, int64_t c3) {
  return {j, c2 / (x.ne[2] / w.ne[2]), c3 / (x.ne[3] / w.ne[3])};
}

// One batch's problem: x batch (c2, c3) with the w batch that serves it.
GemmProblem batch_problem(const Tensor& node, const Tensor& w, const Tensor& x, int64_t c2, int64_t c3) {
  GemmProblem p{};
  p.w = element_ptr(w, 0, w_row(w, x, 0, c2, c3));
  p.wt = weight_type(w.type);
  p.w_stride = w.nb[1];
  p.x = reinterpret_cast<const float*>(element_ptr(x, 0, {0, c2, c3}));
  p.x_stride = static_cast<int64_t>(x.nb[1] / sizeof(float));
  p.c = reinterpret_cast<float*>(element_ptr(node, 0, {0, c2, c3}));
  p.ldc = static_cast<int64_t>(node.nb[1] / sizeof(float));
  p.m = w.ne[1];
  p.n = x.ne[1];
  p.k = w.ne[0];
  return p;
}

// x's batches packed for gemv_packed into xt, chunk by chunk (those with phases), one batch per
// task.
void pack_x(KernelContext& ctx, const Tensor& x, const ColumnChunks& ch, float* xt) {
  const int64_t batches = x.ne[2] * x.ne[3];
  const auto x_stride = static_cast<int64_t>(x.nb[1] / sizeof(float));
  const int64_t tasks = task_count(batches, x.ne[1] * x.ne[0], ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int) {
    const Range r = split_range(batches, tasks, task);
    for (int64_t b = r.begin; b < r.end; ++b) {
      const auto* xb = reinterpret_cast<const float*>(element_ptr(x, 0, {0, b % x.ne[2], b / x.ne[2]}));
      for (int64_t c = 0; c < ch.count(); ++c) {
        if (ch.phases(c) == 0) continue;
        ctx.k().gemv_packed.pack(xb + ch.begin(c) * x_stride, x_stride, ch.width(c), x.ne[0], ch.phases(c),
                                 xt + ch.at(b, c));
      }
    }
  });
}

// Rows first .. first + rows - 1 of a quantized w decoded to f32, one after the other in dst.
void decode_rows(const CpuKernels& k, const Tensor& w, RowIndex first, int64_t rows, float* dst) {
  for (int64_t j = 0; j < rows; ++j)
    read_row_f32(k, w, {first.i1 + j, first.i2, first.i3}, 0, w.ne[0], dst + j * w.ne[0]);
}

// Tasks of 64 W rows of one batch, each through every chunk of columns: from X packed by pack_x
// into xt for a chunk with phases, else from x. A quantized w is decoded by each task into its
// thread's part of `decoded` (decoded_rows_bytes each), where the rows are still in the cache
// when the chunks read them.
void run_gemv(KernelContext& ctx, const Tensor& node, const Tensor& w, const Tensor& x, const float* xt,
              const ColumnChunks& ch, std::byte* decoded) {
  const int64_t batches = x.ne[2] * x.ne[3];
  const int64_t row_blocks = (w.ne[1] + kGemvRowsPerTask - 1) / kGemvRowsPerTask;
  const int64_t units = batches * row_blocks;
  const int64_t tasks = task_count(units, kGemvRowsPerTask * w.ne[0] * x.ne[1], ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int thread) {
    const Range r = split_range(units, tasks, task);
    for (int64_t u = r.begin; u < r.end; ++u) {
      const int64_t b = u / row_blocks, j0 = (u % row_blocks) * kGemvRowsPerTask;
      GemmProblem p = batch_problem(node, w, x, b % x.ne[2], b / x.ne[2]);
      const int64_t rows = std::min(kGemvRowsPerTask, p.m - j0);
      const void* wj = static_cast<const std::byte*>(p.w) + static_cast<size_t>(j0) * p.w_stride;
      if (decoded != nullptr) {
        auto* rows_f32 =
            reinterpret_cast<float*>(decoded + static_cast<size_t>(thread) * decoded_rows_bytes(p.k));
        decode_rows(ctx.k(), w, w_row(w, x, j0, b % x.ne[2], b / x.ne[2]), rows, rows_f32);
        wj = rows_f32;
        p.w_stride = static_cast<size_t>(p.k) * sizeof(float);
      }
      for (int64_t c = 0; c < ch.count(); ++c) {
        float* cc = p.c + ch.begin(c) * p.ldc + j0;
        if (ch.phases(c) != 0) {
          ctx.k().gemv_packed.gemv_f32(wj, p.w_stride, rows, xt + ch.at(b, c), ch.width(c), p.k, ch.phases(c),
                                       cc, p.ldc);
        } else {
          ctx.k().gemv[static_cast<int>(p.wt)](wj, p.w_stride, rows, p.x + ch.begin(c) * p.x_stride,
                                               p.x_stride, ch.width(c), p.k, cc, p.ldc);
        }
      }
    }
  });
}

// node = w x on the paths the layout chose; x gathered and, for gemv_packed, packed into xt.
// x_packed: the GEMM finds x (one batch) packed by the previous call (multiply_by_panels).
void multiply(KernelContext& ctx, const MulMatLayout& l, const Tensor& node, const Tensor& w, const Tensor& x,
              const float* xt, bool x_packed = false) {
  if (!l.gemm) {
    run_gemv(ctx, node, w, x, xt, l.chunks, l.quant_rows ? ctx.work() + l.w_offset : nullptr);
    return;
  }
  for (int64_t c3 = 0; c3 < x.ne[3]; ++c3) {
    for (int64_t c2 = 0; c2 < x.ne[2]; ++c2) {
      const GemmProblem p = batch_problem(node, w, x, c2, c3);
      if (l.amx) {
        cpu_amx_gemm(ctx, p, ctx.work() + l.gemm_offset, x_packed);
      } else {
        cpu_gemm(ctx, p, ctx.work() + l.gemm_offset, x_packed);
      }
    }
  }
}

// Quantized w: rows j0 .. j0 + n of w decoded to f32 (then bf16 for AMX), multiplied into the
// result's rows j0 ...
void multiply_by_panels(KernelContext& ctx, const MulMatLayout& l, const Tensor& node, const Tensor& w,
                        const Tensor& x, const float* xt) {
  for (int64_t j0 = 0; j0 < w.ne[1]; j0 += kQuantPanelRows) {
    Tensor panel = w;  // the same strides: rows j0 .. of every batch
    panel.ne[1] = std::min(kQuantPanelRows, w.ne[1] - j0);
    panel.data = element_ptr(w, 0, {j0, 0, 0});
    const Tensor decoded = gather_f32(ctx, panel, ctx.work() + l.w_offset, w.ne[0]);
    Tensor rows = node;
    rows.ne[0] = panel.ne[1];
    rows.data = element_ptr(node, j0, {0, 0, 0});
    // x (one batch) is packed with the first panel and kept for the others.
    const bool x_packed = j0 > 0 && x.ne[2] * x.ne[3] == 1;
    multiply(ctx, l, rows, l.amx ? to_bf16(ctx, decoded, ctx.work() + l.w16_offset) : decoded, x, xt,
             x_packed);
  }
}

}  // namespace

size_t cpu_mul_mat_work_size(const Tensor& node, const CpuKernels& k, int threads) {
  return layout_of(node, k, threads).total;
}

void cpu_op_mul_mat(KernelContext& ctx, const Tensor& node) {
  const MulMatLayout l = layout_of(node, ctx.k(), ctx.threads());
  const Tensor& w0 = *node.src[0];
  const Tensor& x0 = *node.src[1];
  const Tensor x = l.gather_x ? gather_f32(ctx, x0, ctx.work() + l.x_offset,
                                           l.pad_x ? padded_x_stride(x0.ne[0]) : x0.ne[0])
                              : x0;
  float* xt = !l.gemm && l.chunks.packed() ? reinterpret_cast<float*>(ctx.work() + l.xt_offset) : nullptr;
  if (xt != nullptr) pack_x(ctx, x, l.chunks, xt);
  if (l.quant_dot) {
    cpu_quant_dot(ctx, node, w0, x, ctx.work() + l.xq_offset);
    return;
  }
  if (l.quant_tile) {
    cpu_quant_tile(ctx, node, w0, x, ctx.work() + l.xq_offset);
    return;
  }
  if (l.quant_panels) {
    multiply_by_panels(ctx, l, node, w0, x, xt);
    return;
  }
  const Tensor w = l.gather_w ? gather_f32(ctx, w0, ctx.work() + l.w_offset, w0.ne[0]) : w0;
  multiply(ctx, l, node, w, x, xt);
}

}  // namespace bk
