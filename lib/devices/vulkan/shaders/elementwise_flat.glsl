// d = OP(x, y) over F32 tensors that are contiguous, of one shape and whole vec4s long
// (elementwise.glsl compiled with -DFLAT4; the including shader defines OP and BINARY): the
// tensors are walked as flat arrays of vec4s, one per invocation, args.u0 of them. Offsets are
// multiples of 4 elements.
//
// Why a separate kernel: on lavapipe every storage access whose offset differs between lanes
// is a loop over the 8 lanes, and control flow is masked rather than branched, so the general
// kernel's row arithmetic, dtype switches and grid-stride loop cost more than the accesses.
// Straight-line code, with nothing but the three accesses, is much faster (docs/performance.md,
// "Flat element-wise kernels").
//
// With -DTEXEL as well (the *_texel kernels), a and b are R32G32B32A32_SFLOAT uniform texel
// buffers and args.off_a / 4 their first texel: llvmpipe (Mesa 22.3) fetches texels through
// its sampler code, offsets as one vector and a gather, where a storage load is that per-lane
// loop, which makes add faster still on lavapipe. The storage buffers common.glsl declares at bindings 0 and 1
// are not used here, so they need not match the texel layout.
layout(local_size_x = 256) in;

#ifdef TEXEL
layout(binding = 0) uniform samplerBuffer ta4;
layout(binding = 1) uniform samplerBuffer tb4;
#define LOAD_A(i) texelFetch(ta4, int(i))
#define LOAD_B(i) texelFetch(tb4, int(i))
#else
layout(std430, binding = 0) readonly buffer EA4 { vec4 ea4[]; };
layout(std430, binding = 1) readonly buffer EB4 { vec4 eb4[]; };
#define LOAD_A(i) ea4[i]
#define LOAD_B(i) eb4[i]
#endif
layout(std430, binding = 2) writeonly buffer ED4 { vec4 ed4[]; };

void main() {
  const uint i = group_index() * 256u + gl_LocalInvocationID.x;
  if (i >= args.u0) return;
  const vec4 x = LOAD_A(args.off_a / 4u + i);
#ifdef BINARY
  const vec4 y = LOAD_B(args.off_b / 4u + i);
#else
  const vec4 y = vec4(0.0);
#endif
  ed4[args.off_d / 4u + i] = OP(x, y);
}
