#version 450
// Rotary embedding, one thread per element of a. b: I32 positions, position of token i2 at
// b[off_b + i2 * nb_b.x]. u0: n_dims; f0: freq_base; variant(): 0 normal, 1 neox.
#include "common.glsl"
layout(local_size_x = 256) in;

void main() {
  const uint f = group_index() * 256u + gl_LocalInvocationID.x;
  if (f >= elements(args.ne_a)) return;
  const uvec4 i = unflatten(f, args.ne_a);
  const uint n_dims = args.u0;
  const float x = load_a(at(args.off_a, i, args.nb_a));
  if (i.x >= n_dims) {
    store_d(at(args.off_d, i, args.nb_d), x);
    return;
  }
  const uint half_dims = n_dims / 2u;
  const bool neox = variant() == 1u;
  const uint k = neox ? i.x % half_dims : i.x / 2u;
  const bool first = neox ? i.x < half_dims : (i.x & 1u) == 0u;
  const uint partner = neox ? (first ? i.x + half_dims : i.x - half_dims) : (i.x ^ 1u);
  const float y = load_a(at(args.off_a, uvec4(partner, i.yzw), args.nb_a));
  const float pos = float(bi[args.off_b + i.z * args.nb_b.x]);
  const float theta = pos * exp2(-2.0 * float(k) / float(n_dims) * log2(args.f0));
  const float c = cos(theta), s = sin(theta);
  // first: x0 = x, x1 = y -> x0 c - x1 s;  second: x1 = x, x0 = y -> x0 s + x1 c.
  store_d(at(args.off_d, i, args.nb_d), first ? x * c - y * s : y * s + x * c);
}
