// SPDX-License-Identifier: MIT
#version 450
// Rotary embedding by rows of a (i1 = head, i2 = token, i3; rows.glsl), each invocation
// rotating whole pairs of the row and then copying the dims past n_dims. b: I32 positions,
// token i2's at b[off_b + i2 * nb_b.x]. u0: n_dims; f0: freq_base; variant(): 0 normal (pairs
// 2j, 2j + 1), 1 neox (pairs j, j + n_dims / 2).
//
// By rows rather than an element per invocation: the row's indices and position are worked out
// once (on lavapipe every invocation does that lane by lane, integer divisions included), and a
// pair's angle, cosine and sine once for both its elements. Each pair is read before either
// element is written, so d may be a.
#include "common.glsl"
#include "rows.glsl"

void row(uvec4 i) {
  const uint n_dims = args.u0;
  const uint half_dims = n_dims / 2u;
  const bool neox = variant() == 1u;
  const float pos = float(bi[args.off_b + i.z * args.nb_b.x]);
  const float log_base = log2(args.f0);
  for (uint j = gl_LocalInvocationID.x; j < half_dims; j += kRowThreads) {
    const uvec4 e0 = uvec4(neox ? j : 2u * j, i.yzw);
    const uvec4 e1 = uvec4(neox ? j + half_dims : 2u * j + 1u, i.yzw);
    const float theta = pos * exp2(-2.0 * float(j) / float(n_dims) * log_base);
    const float c = cos(theta), s = sin(theta);
    const float x0 = load_a(at(args.off_a, e0, args.nb_a));
    const float x1 = load_a(at(args.off_a, e1, args.nb_a));
    store_d(at(args.off_d, e0, args.nb_d), x0 * c - x1 * s);
    store_d(at(args.off_d, e1, args.nb_d), x0 * s + x1 * c);
  }
  for (uint k = n_dims + gl_LocalInvocationID.x; k < args.ne_a.x; k += kRowThreads) {
    const uvec4 e = uvec4(k, i.yzw);
    store_d(at(args.off_d, e, args.nb_d), load_a(at(args.off_a, e, args.nb_a)));
  }
}
