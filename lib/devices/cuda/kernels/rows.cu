// SPDX-License-Identifier: MIT
// Row kernels (rms_norm, soft_max, rope, get_rows) and the pointer arrays of batched GEMMs.
// Reductions run in F32 over one row per block; any strides and float dtypes.

#include "devices/cuda/kernels/kernel_util.cuh"

namespace bk::cuda {
namespace {

// One block per row: a warp for short rows, 256 threads for long ones.
unsigned reduce_threads(int64_t ne0) { return ne0 < 512 ? 32u : 256u; }

unsigned reduce_blocks(int64_t rows) {
  constexpr int64_t kMaxBlocks = 1 << 20;
  return unsigned(rows < kMaxBlocks ? rows : kMaxBlocks);
}

__global__ void rms_norm_kernel(KTensor r, KTensor a, float eps) {
  __shared__ float scratch[32];
  const int64_t rows = nrows(r), ne0 = r.ne[0];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const RowIndex i = row_index(r, row);
    const char* ap = row_ptr(a, i.i1, i.i2, i.i3);
    char* rp = row_ptr(r, i.i1, i.i2, i.i3);
    float sum = 0.0f;
    for (int64_t i0 = threadIdx.x; i0 < ne0; i0 += blockDim.x) {
      const float x = load(ap + i0 * a.nb[0], a.type);
      sum += x * x;
    }
    sum = block_reduce<false>(sum, scratch);
    const float inv = 1.0f / sqrtf(sum / float(ne0) + eps);
    for (int64_t i0 = threadIdx.x; i0 < ne0; i0 += blockDim.x) {
      store(rp + i0 * r.nb[0], r.type, load(ap + i0 * a.nb[0], a.type) * inv);
    }
  }
}

__global__ void soft_max_kernel(KTensor r, KTensor a, KTensor mask, bool has_mask, float scale) {
  __shared__ float scratch[32];
  const int64_t rows = nrows(r), ne0 = r.ne[0];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const RowIndex i = row_index(r, row);
    const char* ap = row_ptr(a, i.i1, i.i2, i.i3);
    const char* mp = has_mask ? row_ptr(mask, i.i1, i.i2 % mask.ne[2], i.i3 % mask.ne[3]) : nullptr;
    char* rp = row_ptr(r, i.i1, i.i2, i.i3);
    auto value = [&](int64_t i0) {
      const float v = scale * load(ap + i0 * a.nb[0], a.type);
      return has_mask ? v + load(mp + i0 * mask.nb[0], mask.type) : v;
    };
    float max = -INFINITY;
    for (int64_t i0 = threadIdx.x; i0 < ne0; i0 += blockDim.x) max = fmaxf(max, value(i0));
    max = block_reduce<true>(max, scratch);
    float sum = 0.0f;
    for (int64_t i0 = threadIdx.x; i0 < ne0; i0 += blockDim.x) sum += expf(value(i0) - max);
    sum = block_reduce<false>(sum, scratch);
    const float inv = 1.0f / sum;
    for (int64_t i0 = threadIdx.x; i0 < ne0; i0 += blockDim.x) {
      store(rp + i0 * r.nb[0], r.type, expf(value(i0) - max) * inv);
    }
  }
}

__global__ void rope_kernel(KTensor r, KTensor a, KTensor positions, int n_dims, int mode, float freq_base) {
  const int64_t rows = nrows(r), ne0 = r.ne[0];
  const int64_t half = n_dims / 2;
  const int64_t work = half + (ne0 - n_dims);  // pairs to rotate, then elements to copy
  for (int64_t row = int64_t(blockIdx.x) * blockDim.y + threadIdx.y; row < rows;
       row += int64_t(gridDim.x) * blockDim.y) {
    const RowIndex i = row_index(r, row);
    const char* ap = row_ptr(a, i.i1, i.i2, i.i3);
    char* rp = row_ptr(r, i.i1, i.i2, i.i3);
    const float p = float(*reinterpret_cast<const int32_t*>(positions.data + i.i2 * positions.nb[0]));
    for (int64_t j = threadIdx.x; j < work; j += blockDim.x) {
      if (j >= half) {
        const int64_t i0 = n_dims + (j - half);
        store(rp + i0 * r.nb[0], r.type, load(ap + i0 * a.nb[0], a.type));
        continue;
      }
      const int64_t e0 = mode == 0 ? 2 * j : j;
      const int64_t e1 = mode == 0 ? 2 * j + 1 : j + half;
      const float theta = p * powf(freq_base, -2.0f * float(j) / float(n_dims));
      float s, c;
      sincosf(theta, &s, &c);
      const float x0 = load(ap + e0 * a.nb[0], a.type), x1 = load(ap + e1 * a.nb[0], a.type);
      store(rp + e0 * r.nb[0], r.type, x0 * c - x1 * s);
      store(rp + e1 * r.nb[0], r.type, x0 * s + x1 * c);
    }
  }
}

__global__ void get_rows_kernel(KTensor r, KTensor table, KTensor indices) {
  const int64_t rows = nrows(r), ne0 = r.ne[0];
  for (int64_t row = int64_t(blockIdx.x) * blockDim.y + threadIdx.y; row < rows;
       row += int64_t(gridDim.x) * blockDim.y) {
    const RowIndex i = row_index(r, row);
    const int64_t src =
        *reinterpret_cast<const int32_t*>(row_ptr(indices, i.i2, i.i3, 0) + i.i1 * indices.nb[0]);
    char* rp = row_ptr(r, i.i1, i.i2, i.i3);
    const bool valid = src >= 0 && src < table.ne[1];
    const char* tp = valid ? row_ptr(table, src, i.i2, i.i3) : nullptr;
    for (int64_t i0 = threadIdx.x; i0 < ne0; i0 += blockDim.x) {
      store(rp + i0 * r.nb[0], r.type,
            valid ? load(tp + i0 * table.nb[0], table.type) : __int_as_float(0x7fc00000));
    }
  }
}

__global__ void batch_pointers_kernel(KBatchPointers p, void** out) {
  const int64_t batches = p.c2 * p.c3;
  for (int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < batches;
       b += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c2 = b % p.c2, c3 = b / p.c2;
    out[b] = const_cast<char*>(p.w + (c2 / p.r2) * p.w_nb2 + (c3 / p.r3) * p.w_nb3);
    out[batches + b] = const_cast<char*>(p.x + c2 * p.x_nb2 + c3 * p.x_nb3);
    out[2 * batches + b] = p.r + c2 * p.r_nb2 + c3 * p.r_nb3;
  }
}

}  // namespace

cudaError_t launch_rms_norm(const KTensor& r, const KTensor& a, float eps, cudaStream_t stream) {
  const int64_t rows = nrows(r);
  if (rows == 0 || r.ne[0] == 0) return cudaSuccess;
  rms_norm_kernel<<<reduce_blocks(rows), reduce_threads(r.ne[0]), 0, stream>>>(r, a, eps);
  return launched();
}

cudaError_t launch_soft_max(const KTensor& r, const KTensor& a, const KTensor* mask, float scale,
                            cudaStream_t stream) {
  const int64_t rows = nrows(r);
  if (rows == 0 || r.ne[0] == 0) return cudaSuccess;
  soft_max_kernel<<<reduce_blocks(rows), reduce_threads(r.ne[0]), 0, stream>>>(r, a, mask ? *mask : KTensor{},
                                                                               mask != nullptr, scale);
  return launched();
}

cudaError_t launch_rope(const KTensor& r, const KTensor& a, const KTensor& positions, int n_dims, int mode,
                        float freq_base, cudaStream_t stream) {
  const int64_t rows = nrows(r);
  if (rows == 0 || r.ne[0] == 0) return cudaSuccess;
  const RowBlocks s = row_blocks(n_dims / 2 + (r.ne[0] - n_dims), rows);
  rope_kernel<<<s.grid, s.block, 0, stream>>>(r, a, positions, n_dims, mode, freq_base);
  return launched();
}

cudaError_t launch_get_rows(const KTensor& r, const KTensor& table, const KTensor& indices,
                            cudaStream_t stream) {
  const int64_t rows = nrows(r);
  if (rows == 0 || r.ne[0] == 0) return cudaSuccess;
  const RowBlocks s = row_blocks(r.ne[0], rows);
  get_rows_kernel<<<s.grid, s.block, 0, stream>>>(r, table, indices);
  return launched();
}

cudaError_t launch_batch_pointers(const KBatchPointers& p, void** out, cudaStream_t stream) {
  const int64_t batches = p.c2 * p.c3;
  if (batches == 0) return cudaSuccess;
  constexpr int64_t kThreads = 128;
  const int64_t blocks = (batches + kThreads - 1) / kThreads;
  batch_pointers_kernel<<<unsigned(blocks < 65535 ? blocks : 65535), unsigned(kThreads), 0, stream>>>(p, out);
  return launched();
}

}  // namespace bk::cuda
