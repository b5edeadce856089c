// SPDX-License-Identifier: MIT
#version 450
// d[m, n, c2, c3] = sum_k a[k, m, w2, w3] * b[k, n, c2, c3] (ggml's mul_mat, a = weights of
// any float type, b = F32 activations, d = F32), tiled through shared memory: each workgroup
// computes a kTileM x kTileN block of d for one batch, staging kTileK-deep slices of both
// operands in shared memory; each thread accumulates a kPerThread x kPerThread sub-block.
// The weight dtype is a compile-time choice (W_F16, W_BF16, else F32): the load sits in the
// innermost loop that fills the tiles. QUANT (with one of quant.glsl's types): a is quantized
// and decoded while the tile is filled, four consecutive k at a time (K is a whole number of
// blocks, so a multiple of kTileK).
//
// Grid: x = tiles of M, y = tiles of N, z = batches (c2 fastest); u0, u1, and the f1 bits give
// the group offsets of a dispatch split to respect maxComputeWorkGroupCount.
#include "common.glsl"
#ifdef QUANT
#include "quant.glsl"
#endif

const uint kTileM = 64u;
const uint kTileN = 64u;
const uint kTileK = 16u;
const uint kThreads = 256u;
const uint kPerThread = 4u;  // kTileM * kTileN / kThreads = 16 = 4 x 4
const uint kStride = 16u;    // threads along M (and N); sub-block element r is at tm + r * 16
layout(local_size_x = 256) in;

shared float tile_a[kTileK][kTileM + 1u];
shared float tile_b[kTileK][kTileN + 1u];

float load_w(uint i) {
#if defined(W_F16)
  return unpackHalf2x16(uint(a16[i])).x;
#elif defined(W_BF16)
  return uintBitsToFloat(uint(a16[i]) << 16);
#else
  return a32[i];
#endif
}

void main() {
  const uint m0 = (gl_WorkGroupID.x + args.u0) * kTileM;
  const uint n0 = (gl_WorkGroupID.y + args.u1) * kTileN;
  const uint batch = gl_WorkGroupID.z + floatBitsToUint(args.f1);
  const uint K = args.ne_a.x, M = args.ne_a.y, N = args.ne_b.y;
  const uint c2 = batch % args.ne_b.z, c3 = batch / args.ne_b.z;
  const uint w2 = c2 / (args.ne_b.z / args.ne_a.z), w3 = c3 / (args.ne_b.w / args.ne_a.w);
  const uint a_base = args.off_a + w2 * args.nb_a.z + w3 * args.nb_a.w;
  const uint b_base = args.off_b + c2 * args.nb_b.z + c3 * args.nb_b.w;
  const uint t = gl_LocalInvocationID.x;
  const uint tm = t % kStride, tn = t / kStride;

  float acc[kPerThread][kPerThread];
  for (uint r = 0u; r < kPerThread; ++r)
    for (uint c = 0u; c < kPerThread; ++c) acc[r][c] = 0.0;

  for (uint k0 = 0u; k0 < K; k0 += kTileK) {
#ifdef QUANT
    {  // kTileK / 4 * kTileM = kThreads: four k of one row each, neighbours along the row
      const uint kk = (t % (kTileK / 4u)) * 4u, mm = t / (kTileK / 4u);
      const uint m = m0 + mm;
      const vec4 w = m < M ? dequant4(a_base + m * args.nb_a.y, k0 + kk) : vec4(0.0);
      for (uint i = 0u; i < 4u; ++i) tile_a[kk + i][mm] = w[i];
    }
#else
    // Consecutive threads read consecutive k of one row: contiguous when K is innermost.
    for (uint e = t; e < kTileK * kTileM; e += kThreads) {
      const uint kk = e % kTileK, mm = e / kTileK;
      const uint k = k0 + kk, m = m0 + mm;
      tile_a[kk][mm] = (k < K && m < M) ? load_w(a_base + k * args.nb_a.x + m * args.nb_a.y) : 0.0;
    }
#endif
    for (uint e = t; e < kTileK * kTileN; e += kThreads) {
      const uint kk = e % kTileK, nn = e / kTileK;
      const uint k = k0 + kk, n = n0 + nn;
      tile_b[kk][nn] = (k < K && n < N) ? b32[b_base + k * args.nb_b.x + n * args.nb_b.y] : 0.0;
    }
    barrier();
    for (uint kk = 0u; kk < kTileK; ++kk) {
      float av[kPerThread], bv[kPerThread];
      for (uint r = 0u; r < kPerThread; ++r) av[r] = tile_a[kk][tm + r * kStride];
      for (uint c = 0u; c < kPerThread; ++c) bv[c] = tile_b[kk][tn + c * kStride];
      for (uint r = 0u; r < kPerThread; ++r)
        for (uint c = 0u; c < kPerThread; ++c) acc[r][c] = fma(av[r], bv[c], acc[r][c]);
    }
    barrier();
  }

  const uint d_base = args.off_d + c2 * args.nb_d.z + c3 * args.nb_d.w;
  for (uint r = 0u; r < kPerThread; ++r) {
    const uint m = m0 + tm + r * kStride;
    if (m >= M) continue;
    for (uint c = 0u; c < kPerThread; ++c) {
      const uint n = n0 + tn + c * kStride;
      if (n < N) d32[d_base + m * args.nb_d.x + n * args.nb_d.y] = acc[r][c];
    }
  }
}
