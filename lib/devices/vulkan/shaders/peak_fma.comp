// SPDX-License-Identifier: MIT
#version 450
// The peak-arithmetic probe (Backend::run_peak_kernel): 8 independent vec4 multiply-add
// chains per invocation, u0 x 16 rounds each, so the FMA units never wait on a result. The
// multiplier and addend come from the push constants (f0, f1) so nothing folds at compile
// time, and each invocation stores the sum of its chains (to d, the backend's scratch) so
// nothing is dead. PEAK_F16 runs the chains in float16_t (needs shaderFloat16).
//
// FLOPs per invocation: u0 * kUnroll * kChains * 4 lanes * 2 (see vk_peak.cpp).
#ifdef PEAK_F16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif
#include "common.glsl"

layout(local_size_x = 64) in;

#ifdef PEAK_F16
#define VEC f16vec4
#define SCALAR float16_t
#else
#define VEC vec4
#define SCALAR float
#endif

// kChains (8) chains written out, and kUnroll (16) rounds of them per loop trip, as straight
// code: lavapipe does not unroll a nested loop this large, and indexing an array of chains in a
// loop it keeps spills them to memory (the probe then measured a third of its own mul_mat).
#define ROUND                    \
  a0 = fma(a0, VEC(mul), VEC(add)); \
  a1 = fma(a1, VEC(mul), VEC(add)); \
  a2 = fma(a2, VEC(mul), VEC(add)); \
  a3 = fma(a3, VEC(mul), VEC(add)); \
  a4 = fma(a4, VEC(mul), VEC(add)); \
  a5 = fma(a5, VEC(mul), VEC(add)); \
  a6 = fma(a6, VEC(mul), VEC(add)); \
  a7 = fma(a7, VEC(mul), VEC(add));
#define FOUR_ROUNDS ROUND ROUND ROUND ROUND

void main() {
  const uint id = group_index() * 64u + gl_LocalInvocationID.x;
  const SCALAR mul = SCALAR(args.f0);
  const SCALAR add = SCALAR(args.f1);
  const float seed = float(id & 7u) * 0.01;
  VEC a0 = VEC(SCALAR(seed)), a1 = VEC(SCALAR(0.125 + seed)), a2 = VEC(SCALAR(0.25 + seed)),
      a3 = VEC(SCALAR(0.375 + seed)), a4 = VEC(SCALAR(0.5 + seed)), a5 = VEC(SCALAR(0.625 + seed)),
      a6 = VEC(SCALAR(0.75 + seed)), a7 = VEC(SCALAR(0.875 + seed));
  // Sixteen rounds a loop trip: lavapipe's loop control costs about as much as 40 of them.
  for (uint i = 0u; i < args.u0; ++i) {
    FOUR_ROUNDS FOUR_ROUNDS FOUR_ROUNDS FOUR_ROUNDS
  }
  const VEC sum = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
  d32[args.off_d + id] = float(sum.x + sum.y + sum.z + sum.w);
}
