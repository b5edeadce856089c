// SPDX-License-Identifier: MIT
#version 450
// d[i0, i1, i2, i3] = a[i0, b[i1, i2, i3], i2, i3], one thread per element of d. b: I32
// indices, strides nb_b.xyz for its dims 0-2. An index outside the table (u1 rows) yields NaN
// instead of an out-of-range read. a may be a block of the table's rows starting at row u0
// (vk_ops.cpp): elements whose index falls outside the block are left to another dispatch.
// QUANT (with one of quant.glsl's types): a is a quantized table, decoded in place.
#include "common.glsl"
#ifdef QUANT
#include "quant.glsl"
#endif
layout(local_size_x = 256) in;

void main() {
  const uint f = group_index() * 256u + gl_LocalInvocationID.x;
  if (f >= elements(args.ne_d)) return;
  const uvec4 i = unflatten(f, args.ne_d);
  const int row = bi[args.off_b + i.y * args.nb_b.x + i.z * args.nb_b.y + i.w * args.nb_b.z];
  float v = uintBitsToFloat(0x7FC00000u);
  if (row >= 0 && uint(row) < args.u1) {
    if (uint(row) < args.u0 || uint(row) - args.u0 >= args.ne_a.y) return;
#ifdef QUANT
    v = dequant4(at(args.off_a, uvec4(0u, uint(row) - args.u0, i.zw), args.nb_a), i.x & ~3u)[i.x & 3u];
#else
    v = load_a(at(args.off_a, uvec4(i.x, uint(row) - args.u0, i.zw), args.nb_a));
#endif
  }
  store_d(at(args.off_d, i, args.nb_d), v);
}
