// SPDX-License-Identifier: MIT
#version 450
// cpy and cont that also reshape (same-shape copies and casts take copy.comp): element f of a
// in logical order goes to element f of d, converted.
// a and d may have different shapes with the same number of elements.
#include "common.glsl"
layout(local_size_x = 256) in;

void main() {
  const uint f = group_index() * 256u + gl_LocalInvocationID.x;
  if (f >= elements(args.ne_d)) return;
  const float v = load_a(at(args.off_a, unflatten(f, args.ne_a), args.nb_a));
  store_d(at(args.off_d, unflatten(f, args.ne_d), args.nb_d), v);
}
