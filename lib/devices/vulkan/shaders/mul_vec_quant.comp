// SPDX-License-Identifier: MIT
#version 450
// d[m, n, c2, c3] = sum_k a[k, m, w2, w3] * b[k, n, c2, c3] for quantized weights (quant.glsl's
// types) and few columns, the decode shape, on GPUs: reading W is all the cost, so a workgroup
// takes kRows rows of W and its 64 threads walk each row together, four k apiece, neighbours
// on neighbouring bytes (coalesced), then sum their partial dots through shared memory.
//
// Grid: x = blocks of kRows rows m, y = columns n, z = batches (c2 fastest); u0, u1 and the
// bits of f1 are the group offsets of a split dispatch. variant() 1: x has K contiguous and
// vec4-aligned columns (as mul_mat_quant.comp).
#include "common.glsl"
#include "quant.glsl"

const uint kThreads = 64u;
const uint kRows = 4u;
layout(local_size_x = 64) in;

layout(std430, binding = 1) readonly buffer B4 { vec4 b4[]; };

shared float partial[kRows][kThreads];

vec4 load_x4(uint x, uint k) {
  if (variant() == 1u) return b4[(x + k) / 4u];
  const uint s = args.nb_b.x, i = x + k * s;
  return vec4(b32[i], b32[i + s], b32[i + 2u * s], b32[i + 3u * s]);
}

void main() {
  const uint m0 = (gl_WorkGroupID.x + args.u0) * kRows;
  const uint n = gl_WorkGroupID.y + args.u1;
  const uint batch = gl_WorkGroupID.z + floatBitsToUint(args.f1);
  const uint K = args.ne_a.x, M = args.ne_a.y;
  const uint c2 = batch % args.ne_b.z, c3 = batch / args.ne_b.z;
  const uint w2 = c2 / (args.ne_b.z / args.ne_a.z), w3 = c3 / (args.ne_b.w / args.ne_a.w);
  const uint w_base = args.off_a + w2 * args.nb_a.z + w3 * args.nb_a.w;  // bytes
  const uint x_col = args.off_b + c2 * args.nb_b.z + c3 * args.nb_b.w + n * args.nb_b.y;
  const uint t = gl_LocalInvocationID.x;

  float acc[kRows];
  for (uint r = 0u; r < kRows; ++r) acc[r] = 0.0;
  for (uint k = 4u * t; k < K; k += 4u * kThreads) {
    const vec4 x = load_x4(x_col, k);
    for (uint r = 0u; r < kRows; ++r) {
      // Rows past M read row M - 1 and are not stored: every thread reaches the barriers.
      acc[r] += dot(dequant4(w_base + min(m0 + r, M - 1u) * args.nb_a.y, k), x);
    }
  }

  for (uint r = 0u; r < kRows; ++r) partial[r][t] = acc[r];
  barrier();
  for (uint s = kThreads / 2u; s > 0u; s >>= 1u) {
    if (t < s) {
      for (uint r = 0u; r < kRows; ++r) partial[r][t] += partial[r][t + s];
    }
    barrier();
  }
  if (t < kRows && m0 + t < M) {
    d32[args.off_d + c2 * args.nb_d.z + c3 * args.nb_d.w + (m0 + t) * args.nb_d.x + n * args.nb_d.y] =
        partial[t][0];
  }
}
