// Shared by every bk kernel: the argument block (mirrored by VulkanKernelArgs in
// vk_kernel_args.h, 128 bytes, the push-constant size every device guarantees), the three
// storage bindings and typed element access.
//
// Bindings: 0 = a (first source), 1 = b (second source), 2 = d (destination). Each binding is
// declared once per element width; the blocks alias the same bound range, and the dtype codes
// in args.types (bk::DType: 0 F32, 1 F16, 2 BF16, 3 I32) choose which one an access uses.
// Offsets and strides are in elements of the tensor's own dtype, relative to the bound range.
#extension GL_EXT_shader_16bit_storage : require

layout(push_constant) uniform Args {
  uvec4 ne_a;
  uvec4 nb_a;
  uvec4 ne_b;
  uvec4 nb_b;
  uvec4 ne_d;
  uvec4 nb_d;
  uint off_a;
  uint off_b;
  uint off_d;
  uint types;  // a | b << 4 | d << 8 | variant << 12
  float f0;
  float f1;
  uint u0;
  uint u1;
} args;

layout(std430, binding = 0) readonly buffer A32 { float a32[]; };
layout(std430, binding = 0) readonly buffer A16 { uint16_t a16[]; };
layout(std430, binding = 1) readonly buffer B32 { float b32[]; };
layout(std430, binding = 1) readonly buffer B16 { uint16_t b16[]; };
layout(std430, binding = 1) readonly buffer BI { int bi[]; };
layout(std430, binding = 2) writeonly buffer D32 { float d32[]; };
layout(std430, binding = 2) writeonly buffer D16 { uint16_t d16[]; };

const uint kF32 = 0u;
const uint kF16 = 1u;
const uint kBF16 = 2u;

uint type_a() { return args.types & 0xFu; }
uint type_b() { return (args.types >> 4) & 0xFu; }
uint type_d() { return (args.types >> 8) & 0xFu; }
uint variant() { return (args.types >> 12) & 0xFu; }

float half_bits_to_float(uint bits, uint type) {
  return type == kF16 ? unpackHalf2x16(bits).x : uintBitsToFloat(bits << 16);
}

// Round to nearest even, NaN stays NaN (as bk::f32_to_bf16).
uint float_to_bf16_bits(float v) {
  const uint u = floatBitsToUint(v);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (u >> 16) | 0x40u;
  return (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
}

// Round to nearest even, with subnormals, overflow to inf and NaN kept (as bk::f32_to_f16);
// written out because packHalf2x16 leaves the rounding to the implementation.
uint float_to_f16_bits(float v) {
  const uint u = floatBitsToUint(v);
  const uint sign = (u >> 16) & 0x8000u;
  const uint mag = u & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) return sign | 0x7E00u | ((mag >> 13) & 0x3FFu);
  if (mag >= 0x477FF000u) return sign | 0x7C00u;  // rounds to at least 65520: inf
  if (mag < 0x38800000u) {                         // below 2^-14: a subnormal f16 or zero
    if (mag < 0x33000000u) return sign;            // below half the smallest subnormal
    const uint e = mag >> 23;
    const uint m = (mag & 0x7FFFFFu) | 0x800000u;
    const uint shift = 126u - e;  // 14..24
    const uint q = m >> shift;
    const uint rest = m & ((1u << shift) - 1u);
    const uint halfway = 1u << (shift - 1u);
    const uint up = (rest > halfway || (rest == halfway && (q & 1u) == 1u)) ? 1u : 0u;
    return sign | (q + up);
  }
  const uint rebased = mag - 0x38000000u;  // exponent bias 127 -> 15
  const uint q = rebased >> 13;
  const uint rest = rebased & 0x1FFFu;
  const uint up = (rest > 0x1000u || (rest == 0x1000u && (q & 1u) == 1u)) ? 1u : 0u;
  return sign | (q + up);
}

float load_a(uint i) {
  const uint t = type_a();
  return t == kF32 ? a32[i] : half_bits_to_float(uint(a16[i]), t);
}

float load_b(uint i) {
  const uint t = type_b();
  return t == kF32 ? b32[i] : half_bits_to_float(uint(b16[i]), t);
}

void store_d(uint i, float v) {
  const uint t = type_d();
  if (t == kF32) {
    d32[i] = v;
  } else {
    d16[i] = uint16_t(t == kF16 ? float_to_f16_bits(v) : float_to_bf16_bits(v));
  }
}

uint elements(uvec4 ne) { return ne.x * ne.y * ne.z * ne.w; }

// The 4-D index of flat element f in logical (i0 fastest) order.
uvec4 unflatten(uint f, uvec4 ne) {
  uvec4 i;
  i.x = f % ne.x;
  f /= ne.x;
  i.y = f % ne.y;
  f /= ne.y;
  i.z = f % ne.z;
  i.w = f / ne.z;
  return i;
}

uint at(uint off, uvec4 i, uvec4 nb) { return off + i.x * nb.x + i.y * nb.y + i.z * nb.z + i.w * nb.w; }

// Work items are laid out over a 2-D grid of workgroups (x up to the device limit, then y), so
// that element and row counts beyond maxComputeWorkGroupCount[0] need no second dispatch.
uint group_index() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
