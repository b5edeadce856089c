// SPDX-License-Identifier: MIT
#version 450
// mul_mat with quantized weights (quant.glsl's types) for CPU-like devices (lavapipe): the lane
// kernel of mul_mat_lanes.comp, decoding the blocks of its rows in registers. Lanes take
// consecutive rows m, each invocation ROWS rows (l, l + 64, ...) by COLS columns n. Per span of
// 32 k it fetches each row's codes and scales once (quant.glsl's span_words, span_scales); per
// run of four k it decodes four weights a row and makes ROWS x COLS vec4 dots, so the decoding
// is paid once for every column.
//
// SUBGROUP (subgroups of at least kShare = 8 lanes): lane l reads the activations of every 8th
// column (or, for one column, the l-th of 8 consecutive vec4s) and subgroupShuffle hands them to
// the others: on llvmpipe a read that every lane makes at the same address is a loop over the
// lanes (mul_mat_lanes.comp).
//
// variant() 1: x has K contiguous, its columns at multiples of 4 elements, so an activation
// vec4 is one load; otherwise four strided ones. The choice is made once, outside the loops
// (run(packed)): llvmpipe runs both sides of a branch inside them. K is a whole number of blocks.
//
// TEXEL (with SUBGROUP): W is read through an R32_UINT texel buffer (quant.glsl) and x through an
// RGBA32F one, args.off_b / 4 its first texel, as mul_mat_lanes.comp's TEXEL build.
//
// Grid: x = blocks of 64 * ROWS rows m, y = blocks of COLS columns n, z = batches (c2 fastest);
// u0, u1 and the bits of f1 are the group offsets of a split dispatch.
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "quant.glsl"
#ifdef SUBGROUP
#extension GL_KHR_shader_subgroup_shuffle : require
#endif

const uint kLanes = 64u;
const uint kPerLane = ROWS;
const uint kRows = kLanes * kPerLane;
const uint kCols = COLS;
#ifdef SUBGROUP
const uint kShare = 8u;  // lanes sharing their reads; kCols is a multiple
#endif
layout(local_size_x = 64) in;

#ifdef TEXEL
layout(binding = 1) uniform samplerBuffer tb4;
vec4 x4_at(uint i) { return texelFetch(tb4, int(i)); }
float x_at(uint i) { return texelFetch(tb4, int(i >> 2u))[i & 3u]; }
#else
layout(std430, binding = 1) readonly buffer B4 { vec4 b4[]; };
vec4 x4_at(uint i) { return b4[i]; }
float x_at(uint i) { return b32[i]; }
#endif

// Activations k..k+3 of the column at element x (k a multiple of 4).
vec4 load_x4(uint x, uint k, bool packed) {
  if (packed) return x4_at((x + k) / 4u);
  const uint s = args.nb_b.x, i = x + k * s;
  return vec4(x_at(i), x_at(i + s), x_at(i + 2u * s), x_at(i + 3u * s));
}

void run(const bool packed) {
  const uint m_first = (gl_WorkGroupID.x + args.u0) * kRows + gl_LocalInvocationID.x;
  const uint n0 = (gl_WorkGroupID.y + args.u1) * kCols;
  const uint batch = gl_WorkGroupID.z + floatBitsToUint(args.f1);
  const uint K = args.ne_a.x, M = args.ne_a.y, N = args.ne_b.y;
  const uint c2 = batch % args.ne_b.z, c3 = batch / args.ne_b.z;
  const uint w2 = c2 / (args.ne_b.z / args.ne_a.z), w3 = c3 / (args.ne_b.w / args.ne_a.w);
  const uint w_base = args.off_a + w2 * args.nb_a.z + w3 * args.nb_a.w;  // bytes
  const uint x_base = args.off_b + c2 * args.nb_b.z + c3 * args.nb_b.w;

  // Rows past M decode row M - 1 again and store nothing, columns past N repeat the last one:
  // no lane leaves early, so the shuffles stay in uniform control flow.
  uint w_row[kPerLane];
  for (uint r = 0u; r < kPerLane; ++r) w_row[r] = w_base + min(m_first + r * kLanes, M - 1u) * args.nb_a.y;
  uint x_col[kCols];
  for (uint c = 0u; c < kCols; ++c) x_col[c] = x_base + min(n0 + c, N - 1u) * args.nb_b.y;
  float acc[kPerLane][kCols];
  for (uint r = 0u; r < kPerLane; ++r)
    for (uint c = 0u; c < kCols; ++c) acc[r][c] = 0.0;

  // In spans of 32 k (quant.glsl), eight runs of four, and kShare vec4s of x.
  const uint kSpans = kBlock / 32u;
  if (n0 + 1u >= N) {
    // One column (a matrix-vector product, or d's last): computing it kCols times over would
    // be kCols times the work.
    for (uint block = 0u; block < K / kBlock; ++block) {
      Head head[kPerLane];
      for (uint r = 0u; r < kPerLane; ++r) head[r] = block_head(w_row[r] + block * kBlockBytes);
      for (uint span = 0u; span < kSpans; ++span) {
        const uint k = block * kBlock;
#ifdef SUBGROUP
        const vec4 xs = load_x4(x_col[0], k + span_element(span, gl_SubgroupInvocationID % kShare), packed);
#endif
        uint w[kPerLane][8];
        vec2 s[kPerLane][kSpanGroups];
        for (uint r = 0u; r < kPerLane; ++r) {
          const uint at = w_row[r] + block * kBlockBytes;
          span_words(at, span, w[r]);
          span_scales(head[r], at, span, s[r]);
        }
        [[unroll]] for (uint i = 0u; i < 8u; ++i) {
#ifdef SUBGROUP
          const vec4 x = subgroupShuffle(xs, i);
#else
          const vec4 x = load_x4(x_col[0], k + span_element(span, i), packed);
#endif
          for (uint r = 0u; r < kPerLane; ++r) {
            const vec2 sg = s[r][span_group(i)];
            acc[r][0] += dot(span_codes(w[r][i]) * sg.x + sg.y, x);
          }
        }
      }
    }
  } else {
#ifdef SUBGROUP
    uint own[kCols / kShare];
    for (uint i = 0u; i < kCols / kShare; ++i) own[i] = x_col[i * kShare + gl_SubgroupInvocationID % kShare];
#endif
    for (uint block = 0u; block < K / kBlock; ++block) {
      Head head[kPerLane];
      for (uint r = 0u; r < kPerLane; ++r) head[r] = block_head(w_row[r] + block * kBlockBytes);
      for (uint span = 0u; span < kSpans; ++span) {
        uint w[kPerLane][8];
        vec2 s[kPerLane][kSpanGroups];
        for (uint r = 0u; r < kPerLane; ++r) {
          const uint at = w_row[r] + block * kBlockBytes;
          span_words(at, span, w[r]);
          span_scales(head[r], at, span, s[r]);
        }
        [[unroll]] for (uint i = 0u; i < 8u; ++i) {
          const uint k = block * kBlock + span_element(span, i);
          vec4 wv[kPerLane];
          for (uint r = 0u; r < kPerLane; ++r) {
            const vec2 sg = s[r][span_group(i)];
            wv[r] = span_codes(w[r][i]) * sg.x + sg.y;
          }
#ifdef SUBGROUP
          vec4 xs[kCols / kShare];
          for (uint j = 0u; j < kCols / kShare; ++j) xs[j] = load_x4(own[j], k, packed);
#endif
          for (uint c = 0u; c < kCols; ++c) {
#ifdef SUBGROUP
            const vec4 x = subgroupShuffle(xs[c / kShare], c % kShare);
#else
            const vec4 x = load_x4(x_col[c], k, packed);
#endif
            for (uint r = 0u; r < kPerLane; ++r) acc[r][c] += dot(wv[r], x);
          }
        }
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

void main() {
  if (variant() == 1u) {
    run(true);
  } else {
    run(false);
  }
}
