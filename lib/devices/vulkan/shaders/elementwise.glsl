// d = OP(x, y) element by element, x from a and, for binary ops, y the broadcast element of b
// (b.ne divides a.ne). The including shader defines OP and BINARY.
//
// Grid: y and z enumerate the rows of a (i1..i3, so their index arithmetic is per workgroup,
// scalar), x blocks of 256 along the row; each thread strides over the row by the whole grid
// width, so any row length fits the x limit. Only the broadcast of b along dim 0 needs a
// per-element modulo, and only when b's rows are shorter.
layout(local_size_x = 256) in;

void main() {
  const uint row = gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y;
  if (row >= args.ne_a.y * args.ne_a.z * args.ne_a.w) return;
  const uvec4 r = uvec4(0u, row % args.ne_a.y, (row / args.ne_a.y) % args.ne_a.z, row / (args.ne_a.y * args.ne_a.z));
  const uint a_row = at(args.off_a, r, args.nb_a);
  const uint d_row = at(args.off_d, r, args.nb_d);
#ifdef BINARY
  const uint b_row = at(args.off_b, r % args.ne_b, args.nb_b);
  const bool b_full = args.ne_b.x == args.ne_a.x;
#endif
  const uint n = args.ne_a.x;
  for (uint i = gl_WorkGroupID.x * 256u + gl_LocalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 256u) {
    const float x = load_a(a_row + i * args.nb_a.x);
#ifdef BINARY
    const float y = load_b(b_row + (b_full ? i : i % args.ne_b.x) * args.nb_b.x);
#else
    const float y = 0.0;
#endif
    store_d(d_row + i * args.nb_d.x, OP(x, y));
  }
}
