// d = OP(x, y) element by element, x from a and, for binary ops, y the broadcast element of b
// (b.ne divides a.ne). The including shader defines OP and BINARY.
//
// Grid: y and z enumerate the rows of a (i1..i3, so their index arithmetic is per workgroup,
// scalar), x blocks of kGroup along the row; each thread strides over the row by the whole grid
// width, so any row length fits the x limit. Only the broadcast of b along dim 0 needs a
// per-element modulo, and only when b's rows are shorter.
//
// variant() 1: every operand is F32 with rows contiguous (b's as long as a's), and every
// offset and row stride is a multiple of 4 elements: the row is walked as vec4s, with no
// per-element dtype choice or stride multiply. On lavapipe every non-uniform storage access
// is a per-lane loop, so a quarter of the accesses is most of the speed-up. OP must accept
// vec4 as well as float.
//
// Compiled with -DFLAT4, the file is elementwise_flat.glsl instead: same-shape contiguous
// tensors as one flat run of vec4s.
#ifdef FLAT4
#include "elementwise_flat.glsl"
#else
// The workgroup width, chosen per device when the pipeline is created
// (VulkanPipelines::specialized_width).
layout(constant_id = 0) const uint kGroup = 256u;
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer EA4 { vec4 ea4[]; };
layout(std430, binding = 1) readonly buffer EB4 { vec4 eb4[]; };
layout(std430, binding = 2) writeonly buffer ED4 { vec4 ed4[]; };

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
  if (variant() == 1u) {
    const uint a4 = a_row / 4u, d4 = d_row / 4u;
#ifdef BINARY
    const uint b4 = b_row / 4u;
#endif
    for (uint i = gl_WorkGroupID.x * kGroup + gl_LocalInvocationID.x; i < n / 4u; i += gl_NumWorkGroups.x * kGroup) {
      const vec4 x = ea4[a4 + i];
#ifdef BINARY
      const vec4 y = eb4[b4 + i];
#else
      const vec4 y = vec4(0.0);
#endif
      ed4[d4 + i] = OP(x, y);
    }
    return;
  }
  for (uint i = gl_WorkGroupID.x * kGroup + gl_LocalInvocationID.x; i < n; i += gl_NumWorkGroups.x * kGroup) {
    const float x = load_a(a_row + i * args.nb_a.x);
#ifdef BINARY
    const float y = load_b(b_row + (b_full ? i : i % args.ne_b.x) * args.nb_b.x);
#else
    const float y = 0.0;
#endif
    store_d(d_row + i * args.nb_d.x, OP(x, y));
  }
}
#endif
