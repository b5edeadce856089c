// SPDX-License-Identifier: MIT
#version 450
// The peak-arithmetic probe (Backend::run_peak_kernel): kChains independent vec4 multiply-add
// chains per invocation, u0 x kUnroll rounds each, so the FMA units never wait on a result. The
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

const uint kChains = 8u;
const uint kUnroll = 16u;

void main() {
  const uint id = group_index() * 64u + gl_LocalInvocationID.x;
  const SCALAR mul = SCALAR(args.f0);
  const SCALAR add = SCALAR(args.f1);
  VEC acc[kChains];
  for (uint c = 0u; c < kChains; ++c) acc[c] = VEC(SCALAR(float(c) * 0.125 + float(id & 7u) * 0.01));
  // kUnroll rounds a loop trip: lavapipe's loop control costs about as much as 40 of them.
  for (uint i = 0u; i < args.u0; ++i) {
    for (uint r = 0u; r < kUnroll; ++r) {
      for (uint c = 0u; c < kChains; ++c) acc[c] = fma(acc[c], VEC(mul), VEC(add));
    }
  }
  VEC sum = VEC(SCALAR(0.0));
  for (uint c = 0u; c < kChains; ++c) sum += acc[c];
  d32[args.off_d + id] = float(sum.x + sum.y + sum.z + sum.w);
}
