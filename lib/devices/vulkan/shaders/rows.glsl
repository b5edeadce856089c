// One workgroup of kRowThreads per row of a (rows are ne_a.x long, indexed by i1..i3), with a
// shared-memory tree reduction.
// kRowThreads, a power of two, is chosen per device when the pipeline is created
// (VulkanPipelines::specialized_width).
layout(constant_id = 0) const uint kRowThreads = 128u;
layout(local_size_x_id = 0) in;
shared float row_partial[kRowThreads];

// The row this workgroup handles as (0, i1, i2, i3), or false past the last row.
bool row_index(out uvec4 i) {
  const uint r = group_index();
  if (r >= args.ne_a.y * args.ne_a.z * args.ne_a.w) return false;
  i = uvec4(0u, r % args.ne_a.y, (r / args.ne_a.y) % args.ne_a.z, r / (args.ne_a.y * args.ne_a.z));
  return true;
}

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
