// Row kernels: a workgroup of kRowThreads takes args.u1 consecutive rows of a (rows are ne_a.x
// long, indexed by i1..i3) one after the other. The including shader defines row(i), the work
// on row (0, i1, i2, i3), and may use the shared-memory tree reductions row_sum and row_max.
// kRowThreads, a power of two, is chosen per device when the pipeline is created
// (VulkanPipelines::specialized_width), and args.u1 by vk_ops.cpp.
layout(constant_id = 0) const uint kRowThreads = 128u;
layout(local_size_x_id = 0) in;
shared float row_partial[kRowThreads];

float row_sum(float v) {
  const uint t = gl_LocalInvocationID.x;
  row_partial[t] = v;
  barrier();
  for (uint s = kRowThreads / 2u; s > 0u; s >>= 1u) {
    if (t < s) row_partial[t] += row_partial[t + s];
    barrier();
  }
  const float total = row_partial[0];
  barrier();  // row_partial is reused by the next reduction
  return total;
}

float row_max(float v) {
  const uint t = gl_LocalInvocationID.x;
  row_partial[t] = v;
  barrier();
  for (uint s = kRowThreads / 2u; s > 0u; s >>= 1u) {
    if (t < s) row_partial[t] = max(row_partial[t], row_partial[t + s]);
    barrier();
  }
  const float total = row_partial[0];
  barrier();
  return total;
}

void row(uvec4 i);  // defined by the including shader

void main() {
  const uint rows = args.ne_a.y * args.ne_a.z * args.ne_a.w;
  const uint first = group_index() * args.u1;
  for (uint r = first; r < min(rows, first + args.u1); ++r) {  // uniform: barriers allowed
    row(uvec4(0u, r % args.ne_a.y, (r / args.ne_a.y) % args.ne_a.z, r / (args.ne_a.y * args.ne_a.z)));
  }
}
