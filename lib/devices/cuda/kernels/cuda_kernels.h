// SPDX-License-Identifier: MIT
#pragma once
// The launch interface of the plugin's CUDA kernels (elementwise.cu, rows.cu, peak.cu), shared by nvcc
// and the host compiler: plain structs and functions, no bk headers, so the .cu files stay small
// and compile fast.
//
// A KTensor is a tensor as the kernels see it: a device address, ggml-style sizes (ne[0]
// innermost) and byte strides, any of which may describe a non-contiguous view. Every launcher
// enqueues on `stream`, returns the launch error (cudaGetLastError) and never synchronises; the
// caller converts errors. Empty tensors launch nothing.

#include <cuda_runtime_api.h>

#include <cstdint>

namespace bk::cuda {

enum class KType : int32_t { f32 = 0, f16 = 1, bf16 = 2, i32 = 3 };

struct KTensor {
  char* data = nullptr;
  int64_t ne[4] = {1, 1, 1, 1};
  int64_t nb[4] = {0, 0, 0, 0};
  KType type = KType::f32;
};

enum class KUnary : int32_t { copy, scale, silu, gelu };
enum class KBinary : int32_t { add, mul };

// r = a op b[i0 % b.ne0, ...]: b repeats over a (ops.h broadcasting); r has a's shape.
cudaError_t launch_binary(KBinary op, const KTensor& r, const KTensor& a, const KTensor& b,
                          cudaStream_t stream);
// r = op(a) (param is the factor of scale); r and a have the same shape, any float dtypes: copy
// is the same-shape cpy/cast/cont, converting with round-to-nearest-even.
cudaError_t launch_unary(KUnary op, const KTensor& r, const KTensor& a, float param, cudaStream_t stream);
// Copies a's elements into r in logical order when their shapes differ (equal element counts).
cudaError_t launch_reshape_copy(const KTensor& r, const KTensor& a, cudaStream_t stream);

cudaError_t launch_rms_norm(const KTensor& r, const KTensor& a, float eps, cudaStream_t stream);
// mask may be null.
cudaError_t launch_soft_max(const KTensor& r, const KTensor& a, const KTensor* mask, float scale,
                            cudaStream_t stream);
// mode: 0 normal (adjacent pairs), 1 neox (halves). positions: I32 [a.ne[2]].
cudaError_t launch_rope(const KTensor& r, const KTensor& a, const KTensor& positions, int n_dims, int mode,
                        float freq_base, cudaStream_t stream);
// r (F32) rows gather table rows by the I32 indices; an index outside [0, table.ne[1]) makes
// its row NaN (the device cannot throw), so the error is visible rather than silent.
cudaError_t launch_get_rows(const KTensor& r, const KTensor& table, const KTensor& indices,
                            cudaStream_t stream);

// The pointer arrays of a batched GEMM in ggml's mul_mat broadcast: for batch b = c2 + c3 * C2,
// a[b] = w + (c2 / r2) * w_nb2 + (c3 / r3) * w_nb3, x[b] = x + c2 * x_nb2 + c3 * x_nb3,
// r[b] = r + c2 * r_nb2 + c3 * r_nb3. `out` holds 3 * C2 * C3 pointers: a's, then x's, then r's.
struct KBatchPointers {
  const char* w;
  const char* x;
  char* r;
  int64_t c2, c3, r2, r3;
  int64_t w_nb2, w_nb3, x_nb2, x_nb3, r_nb2, r_nb3;
};
cudaError_t launch_batch_pointers(const KBatchPointers& p, void** out, cudaStream_t stream);

// The peak-FMA probe: `blocks` blocks of kPeakThreads threads, each running kPeakChains
// independent chains for `iterations` steps of one multiply-add per chain (f32) or one paired
// multiply-add (f16 and bf16 as half2 / bfloat162: two per chain). out: one float per thread.
inline constexpr int kPeakThreads = 256;
inline constexpr int kPeakChains = 8;
cudaError_t launch_peak(KType type, float* out, int blocks, long long iterations, cudaStream_t stream);

}  // namespace bk::cuda
