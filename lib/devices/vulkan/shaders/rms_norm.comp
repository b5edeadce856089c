// SPDX-License-Identifier: MIT
#version 450
// d = a / sqrt(mean(a^2) + eps) per row; f0: eps.
#include "common.glsl"
#include "rows.glsl"

void row(uvec4 i) {
  const uint n = args.ne_a.x;
  float sum = 0.0;
  for (uint k = gl_LocalInvocationID.x; k < n; k += kRowThreads) {
    const float x = load_a(at(args.off_a, uvec4(k, i.yzw), args.nb_a));
    sum += x * x;
  }
  const float inv = inversesqrt(row_sum(sum) / float(n) + args.f0);
  for (uint k = gl_LocalInvocationID.x; k < n; k += kRowThreads) {
    const uvec4 e = uvec4(k, i.yzw);
    store_d(at(args.off_d, e, args.nb_d), load_a(at(args.off_a, e, args.nb_a)) * inv);
  }
}
