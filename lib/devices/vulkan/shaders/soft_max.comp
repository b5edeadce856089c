// SPDX-License-Identifier: MIT
#version 450
// d = softmax(f0 * a + mask) per row. u0 != 0: b is an F32 mask whose row i1 serves row i1 of
// a, repeated over dims 2-3.
#include "common.glsl"
#include "rows.glsl"

float logit(uvec4 e) {
  float v = args.f0 * load_a(at(args.off_a, e, args.nb_a));
  if (args.u0 != 0u) {
    v += b32[at(args.off_b, uvec4(e.x, e.y, e.z % args.ne_b.z, e.w % args.ne_b.w), args.nb_b)];
  }
  return v;
}

void row(uvec4 i) {
  const uint n = args.ne_a.x;
  float m = uintBitsToFloat(0xFF800000u);  // -inf
  for (uint k = gl_LocalInvocationID.x; k < n; k += kRowThreads) m = max(m, logit(uvec4(k, i.yzw)));
  m = row_max(m);
  float sum = 0.0;
  for (uint k = gl_LocalInvocationID.x; k < n; k += kRowThreads) sum += exp(logit(uvec4(k, i.yzw)) - m);
  const float inv = 1.0 / row_sum(sum);
  for (uint k = gl_LocalInvocationID.x; k < n; k += kRowThreads) {
    const uvec4 e = uvec4(k, i.yzw);
    store_d(at(args.off_d, e, args.nb_d), exp(logit(e) - m) * inv);
  }
}
