// SPDX-License-Identifier: MIT
#version 450
// mul_mat for CPU-like Vulkan devices (lavapipe): the same contract as mul_mat.comp, without
// shared memory. On a SIMD CPU an invocation is a vector lane and a workgroup a loop over
// lanes, so shared-memory tiles cost a gather per lane per read plus coroutine switches at
// every barrier. Here lanes take consecutive rows m of the weights and each invocation keeps
// kCols outputs (columns n) in registers. Per k: one weight gather, kCols activation reads
// that every lane makes at the same address, kCols vector FMAs.
//
// SUBGROUP (needs subgroups of at least kShare = 8 lanes; kCols a multiple of 8): lane l of
// each subgroup reads the activations of columns l % 8, 8 + l % 8, ... and subgroupShuffle
// hands them to the others. Mesa 22.3's llvmpipe does not see the plain kernel's same-address
// reads as uniform (its test knows constants and push constants, not workgroup ids or loop
// counters), so each is a loop over the 8 lanes; kCols / 8 reads plus register shuffles instead
// of kCols reads is much faster (docs/performance.md), and makes a wider block (16 columns,
// ROWS x COLS in shaders.cmake) pay: each weight read then feeds 16 columns.
//
// variant() 1: both operands have K contiguous and every offset and stride is a multiple of 4
// elements, so k advances four at a time through vec4 / 4 x 16-bit loads (a quarter of the
// load instructions, which dominate on lavapipe).
//
// TEXEL (the _texel kernels): a and b are uniform texel buffers of four elements a texel
// (R32G32B32A32_SFLOAT; F16 weights R16G16B16A16_SFLOAT, which the fetch converts; BF16 ones
// R16G16B16A16_UINT, shifted here), args.off_a / 4 and off_b / 4 their first texels. llvmpipe
// fetches texels as one vector gather where a storage load with a per-lane offset is a loop
// over the lanes (see elementwise_flat.glsl). The storage blocks of common.glsl are unused.
//
// Grid: x = blocks of 64 rows m, y = blocks of kCols columns n, z = batches (c2 fastest);
// u0, u1 and the bits of f1 are the group offsets of a split dispatch.
#include "common.glsl"
#ifdef SUBGROUP
#extension GL_KHR_shader_subgroup_shuffle : require
#endif

const uint kLanes = 64u;   // invocations per workgroup
const uint kPerLane = ROWS; // rows m per invocation: lane l takes rows l, l + 64, ...
const uint kRows = kLanes * kPerLane;
const uint kCols = COLS;
#ifdef SUBGROUP
const uint kShare = 8u;  // lanes sharing their reads; kCols is a multiple, subgroups at least this
#endif
layout(local_size_x = 64) in;

#ifdef TEXEL
#ifdef W_BF16
layout(binding = 0) uniform usamplerBuffer ta4;
#else
layout(binding = 0) uniform samplerBuffer ta4;
#endif
layout(binding = 1) uniform samplerBuffer tb4;
#else
layout(std430, binding = 0) readonly buffer A4 { vec4 a4[]; };
layout(std430, binding = 0) readonly buffer AH4 { uvec2 ah4[]; };
layout(std430, binding = 1) readonly buffer B4 { vec4 b4[]; };
#endif

// Four consecutive activations from element 4 * i, and one from element i.
vec4 load_x4(uint i) {
#ifdef TEXEL
  return texelFetch(tb4, int(i));
#else
  return b4[i];
#endif
}
float load_x(uint i) {
#ifdef TEXEL
  return texelFetch(tb4, int(i >> 2u))[i & 3u];
#else
  return b32[i];
#endif
}

// Four consecutive weights from element 4 * i.
vec4 load_w4(uint i) {
#if defined(TEXEL) && defined(W_BF16)
  return uintBitsToFloat(texelFetch(ta4, int(i)) << 16);
#elif defined(TEXEL)
  return texelFetch(ta4, int(i));
#elif defined(W_F16)
  const uvec2 u = ah4[i];
  return vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y));
#elif defined(W_BF16)
  const uvec2 u = ah4[i];
  return vec4(uintBitsToFloat(u.x << 16), uintBitsToFloat(u.x & 0xFFFF0000u), uintBitsToFloat(u.y << 16),
              uintBitsToFloat(u.y & 0xFFFF0000u));
#else
  return a4[i];
#endif
}

float load_w(uint i) {
#if defined(TEXEL) && defined(W_BF16)
  return uintBitsToFloat(texelFetch(ta4, int(i >> 2u))[i & 3u] << 16);
#elif defined(TEXEL)
  return texelFetch(ta4, int(i >> 2u))[i & 3u];
#elif defined(W_F16)
  return unpackHalf2x16(uint(a16[i])).x;
#elif defined(W_BF16)
  return uintBitsToFloat(uint(a16[i]) << 16);
#else
  return a32[i];
#endif
}

void main() {
  const uint m_first = (gl_WorkGroupID.x + args.u0) * kRows + gl_LocalInvocationID.x;
  const uint n0 = (gl_WorkGroupID.y + args.u1) * kCols;
  const uint batch = gl_WorkGroupID.z + floatBitsToUint(args.f1);
  const uint K = args.ne_a.x, M = args.ne_a.y, N = args.ne_b.y;
  const uint c2 = batch % args.ne_b.z, c3 = batch / args.ne_b.z;
  const uint w2 = c2 / (args.ne_b.z / args.ne_a.z), w3 = c3 / (args.ne_b.w / args.ne_a.w);
  const uint w_base = args.off_a + w2 * args.nb_a.z + w3 * args.nb_a.w;
  const uint x_base = args.off_b + c2 * args.nb_b.z + c3 * args.nb_b.w;

  // Rows past M compute row M - 1 again and store nothing: no lane leaves early, so the
  // activation loads stay in uniform control flow.
  uint w_row[kPerLane];
  for (uint r = 0u; r < kPerLane; ++r) w_row[r] = w_base + min(m_first + r * kLanes, M - 1u) * args.nb_a.y;
  // Columns past N repeat the last one (same loads, results discarded), so the loop has no
  // per-column branch.
  uint x_col[kCols];
  for (uint c = 0u; c < kCols; ++c) x_col[c] = x_base + min(n0 + c, N - 1u) * args.nb_b.y;
  float acc[kPerLane][kCols];
  for (uint r = 0u; r < kPerLane; ++r)
    for (uint c = 0u; c < kCols; ++c) acc[r][c] = 0.0;

  if (n0 + 1u >= N) {
    // A single column (a matrix-vector product, or the last column of d): computing it kCols
    // times over would be kCols times the work.
    if (variant() == 1u) {
      const uint x4 = x_col[0] / 4u;
      for (uint r = 0u; r < kPerLane; ++r) w_row[r] /= 4u;
      uint k = 0u;
#ifdef SUBGROUP
      // Lane l reads the l-th of kCols consecutive vec4s and shuffles them to the others.
      const uint lane = gl_SubgroupInvocationID % kShare;
      for (; k + kShare <= K / 4u; k += kShare) {
        const vec4 xs = load_x4(x4 + k + lane);
        for (uint j = 0u; j < kShare; ++j) {
          const vec4 x = subgroupShuffle(xs, j);
          for (uint r = 0u; r < kPerLane; ++r) acc[r][0] += dot(load_w4(w_row[r] + k + j), x);
        }
      }
#endif
      for (; k < K / 4u; ++k) {
        const vec4 x = load_x4(x4 + k);
        for (uint r = 0u; r < kPerLane; ++r) acc[r][0] += dot(load_w4(w_row[r] + k), x);
      }
    } else {
      for (uint k = 0u; k < K; ++k) {
        const float x = load_x(x_col[0] + k * args.nb_b.x);
        for (uint r = 0u; r < kPerLane; ++r) acc[r][0] = fma(load_w(w_row[r] + k * args.nb_a.x), x, acc[r][0]);
      }
    }
  } else if (variant() == 1u) {
    for (uint r = 0u; r < kPerLane; ++r) w_row[r] /= 4u;
    for (uint c = 0u; c < kCols; ++c) x_col[c] /= 4u;
#ifdef SUBGROUP
    uint own[kCols / kShare];
    for (uint s = 0u; s < kCols / kShare; ++s) own[s] = x_col[s * kShare + gl_SubgroupInvocationID % kShare];
#endif
    for (uint k = 0u; k < K / 4u; ++k) {
      vec4 w[kPerLane];
      for (uint r = 0u; r < kPerLane; ++r) w[r] = load_w4(w_row[r] + k);
#ifdef SUBGROUP
      vec4 xs[kCols / kShare];
      for (uint s = 0u; s < kCols / kShare; ++s) xs[s] = load_x4(own[s] + k);
#endif
      for (uint c = 0u; c < kCols; ++c) {
#ifdef SUBGROUP
        const vec4 x = subgroupShuffle(xs[c / kShare], c % kShare);
#else
        const vec4 x = load_x4(x_col[c] + k);
#endif
        for (uint r = 0u; r < kPerLane; ++r) acc[r][c] += dot(w[r], x);
      }
    }
  } else {
    for (uint k = 0u; k < K; ++k) {
      float w[kPerLane];
      for (uint r = 0u; r < kPerLane; ++r) w[r] = load_w(w_row[r] + k * args.nb_a.x);
      const uint xk = k * args.nb_b.x;
      for (uint c = 0u; c < kCols; ++c) {
        const float x = load_x(x_col[c] + xk);
        for (uint r = 0u; r < kPerLane; ++r) acc[r][c] = fma(w[r], x, acc[r][c]);
      }
    }
  }

  const uint d_base = args.off_d + c2 * args.nb_d.z + c3 * args.nb_d.w;
  for (uint r = 0u; r < kPerLane; ++r) {
    const uint m = m_first + r * kLanes;
    if (m >= M) continue;
    for (uint c = 0u; c < kCols; ++c) {
      if (n0 + c < N) d32[d_base + m * args.nb_d.x + (n0 + c) * args.nb_d.y] = acc[r][c];
    }
  }
}
