// Block-quantized weights in ggml's layouts (bk/quant.h; lib/core/quant.cpp is the reference
// decoder): the including shader defines one of Q8_0, Q4_0, Q4_K, Q6_K and reads a (binding 0)
// as 32-bit words. For a quantized a, args.off_a and nb_a are in bytes (vk_kernel_args.h).
//
// A block holds kBlock elements in kBlockBytes bytes, in groups of kGroup that share a scale:
//   group_scale(block, g) = (mul, add) of group g, codes4(block, j) = the integer codes of
//   elements j..j+3 (j a multiple of 4, so the four share a group), and element = code * mul + add.
// Kernels that stream whole rows read a span of 32 elements at once instead (fewer, shared
// fetches), the block's kBlock / 32 spans in any order: span s is eight runs of four elements,
// run i starting at element span_element(s, i); span_words(block, s, w) puts run i's codes in
// w[i] as four bytes, which span_codes(w[i]) turns into codes4's values, and span_scales(head,
// block, s, sc) the span's kSpanGroups scales, run i taking sc[span_group(i)]; head =
// block_head(block) is what all the block's spans share, fetched once a block. A span is chosen
// so that its codes and scales share as few words as possible (q4_k: 16 bytes of both nibbles,
// q6_k: a quarter of each byte run).
// The products are lib/core/quant.cpp's (d * q, (d * sc) * q, (d * sc) * q - dmin * m), so a
// decoded weight is the CPU's or (q4_k, where a compiler may fuse the last step) within an ulp.
//
// q8_0 (34 bytes), q4_0 (18) and q6_k (210) blocks are only 2-byte aligned, so a 32-bit field
// may straddle two words: word_at() joins them. q4_k blocks (144 bytes) are 4-byte aligned, as
// every tensor's start is (VulkanBufferType::alignment).
//
// TEXEL: a is an R32_UINT uniform texel buffer instead of a storage buffer (llvmpipe gathers a
// texel fetch as one vector, where a storage load with per-lane offsets is a loop over lanes).
#ifdef TEXEL
layout(binding = 0) uniform usamplerBuffer ta;
uint word(uint i) { return texelFetch(ta, int(i)).x; }
#else
layout(std430, binding = 0) readonly buffer AW { uint aw[]; };
uint word(uint i) { return aw[i]; }
#endif

// The 32 bits of words lo and hi from bit `shift` (0, 8, 16 or 24) of lo. Shifting hi in two
// steps gives 0 for shift 0 without a select: glslang makes a select between expressions a
// branch, which halved the quantized kernels' speed on llvmpipe (docs/performance.md).
uint join_words(uint lo, uint hi, uint shift) { return (lo >> shift) | ((hi << 1u) << (31u - shift)); }

// The 32 bits from byte o, little-endian; when o is aligned the second fetch repeats the first,
// so that nothing past the data is read.
uint word_at(uint o) {
  const uint first = o >> 2u, shift = (o & 3u) * 8u;
  return join_words(word(first), word(first + min(shift, 1u)), shift);
}

// n (at most 8) words from byte o in n + 1 fetches; when o is aligned the last fetch repeats
// the n-th.
void words_at(uint o, uint n, out uint w[8]) {
  const uint first = o >> 2u, shift = (o & 3u) * 8u;
  uint lo = word(first);
  for (uint i = 0u; i < n; ++i) {
    const uint hi = word(first + min(i + 1u, shift == 0u ? n - 1u : n));
    w[i] = join_words(lo, hi, shift);
    lo = hi;
  }
}

uint byte_at(uint o) { return (word(o >> 2u) >> ((o & 3u) * 8u)) & 0xFFu; }

// An f16 at byte o (o even, as every scale of these layouts is).
float f16_at(uint o) { return unpackHalf2x16(word(o >> 2u) >> ((o & 2u) * 8u)).x; }

// The four bytes of w, lowest first, shifted right by `shift` bits each (a nibble or a bit pair).
uvec4 bytes_of(uint w, uint shift) { return uvec4(w) >> (uvec4(0u, 8u, 16u, 24u) + shift); }

#if defined(Q8_0)
// d, then 32 int8 codes: x = d * q.
const uint kBlock = 32u;
const uint kBlockBytes = 34u;
const uint kGroup = 32u;

vec2 group_scale(uint block, uint g) { return vec2(f16_at(block), 0.0); }

vec4 codes4(uint block, uint j) {
  const int w = int(word_at(block + 2u + j));
  return vec4((ivec4(w) << ivec4(24, 16, 8, 0)) >> 24);  // sign-extend each byte
}

void span_words(uint block, uint span, out uint w[8]) { words_at(block + 2u, 8u, w); }
vec4 span_codes(uint w) { return vec4((ivec4(w) << ivec4(24, 16, 8, 0)) >> 24); }

#elif defined(Q4_0)
// d, then 16 bytes: byte i holds element i (low nibble) and i + 16 (high nibble); x = d * (q - 8).
const uint kBlock = 32u;
const uint kBlockBytes = 18u;
const uint kGroup = 32u;

vec2 group_scale(uint block, uint g) { return vec2(f16_at(block), 0.0); }

vec4 codes4(uint block, uint j) {
  const uint w = word_at(block + 2u + (j & 15u));
  return vec4(ivec4(bytes_of(w, (j & 16u) >> 2u) & 0xFu) - 8);  // j & 16: the high nibbles
}

void span_words(uint block, uint span, out uint w[8]) {
  uint q[8];
  words_at(block + 2u, 4u, q);
  for (uint i = 0u; i < 8u; ++i) w[i] = (q[i & 3u] >> ((i >> 2u) * 4u)) & 0x0F0F0F0Fu;
}
vec4 span_codes(uint w) { return vec4(ivec4(bytes_of(w, 0u) & 0xFFu) - 8); }

#elif defined(Q4_K)
// d, dmin, 12 bytes of 6-bit (scale, min) for 8 groups of 32, then 128 bytes of nibbles: each
// 64 elements are 32 bytes, low nibbles first; x = (d * sc) * q - dmin * m.
const uint kBlock = 256u;
const uint kBlockBytes = 144u;
const uint kGroup = 32u;

// The (mul, add) of group g from the block's first four words: d and dmin, then the 12 scale
// bytes. Groups 0-3: the low 6 bits of scale bytes g (scale) and g + 4 (min). Groups 4-7: the
// nibbles of byte g + 4, topped by the high 2 bits of bytes g - 4 (scale) and g (min). Computed
// for both halves and picked arithmetically: llvmpipe would run both sides of a branch anyway.
vec2 scale_of(uvec4 head, uint g) {
  const uint shift = (g & 3u) * 8u, high = g >> 2u;
  const uint a = head.y >> shift, b = head.z >> shift, c = head.w >> shift;
  const uint sc = (1u - high) * (a & 63u) + high * ((c & 15u) | ((a >> 2u) & 48u));
  const uint m = (1u - high) * (b & 63u) + high * (((c >> 4u) & 15u) | ((b >> 2u) & 48u));
  const vec2 d = unpackHalf2x16(head.x);
  return vec2(d.x * float(sc), -(d.y * float(m)));
}

// d and dmin, and the 12 scale bytes.
struct Head { uvec4 w; };
Head block_head(uint block) {
  const uint at = block >> 2u;
  return Head(uvec4(word(at), word(at + 1u), word(at + 2u), word(at + 3u)));
}

vec2 group_scale(uint block, uint g) { return scale_of(block_head(block).w, g); }

vec4 codes4(uint block, uint j) {
  const uint w = word(((block + 16u + (j >> 6u) * 32u) >> 2u) + ((j & 31u) >> 2u));
  return vec4(bytes_of(w, (j & 32u) >> 3u) & 0xFu);  // j & 32: the second group, high nibbles
}

// Span s: bytes 16 (s % 2) .. + 15 of the 32 that hold groups 2 (s / 2) and 2 (s / 2) + 1, low
// nibbles (runs 0-3) and high (4-7).
const uint kSpanGroups = 2u;
uint span_element(uint span, uint i) { return (span >> 1u) * 64u + (span & 1u) * 16u + (i >> 2u) * 32u + (i & 3u) * 4u; }
uint span_group(uint i) { return i >> 2u; }
void span_scales(Head head, uint block, uint span, out vec2 sc[kSpanGroups]) {
  for (uint g = 0u; g < 2u; ++g) sc[g] = scale_of(head.w, (span & ~1u) + g);
}
void span_words(uint block, uint span, out uint w[8]) {
  const uint at = (block + 16u + (span >> 1u) * 32u + (span & 1u) * 16u) >> 2u;
  uint q[4];
  for (uint i = 0u; i < 4u; ++i) q[i] = word(at + i);
  for (uint i = 0u; i < 8u; ++i) w[i] = (q[i & 3u] >> ((i >> 2u) * 4u)) & 0x0F0F0F0Fu;
}
vec4 span_codes(uint w) { return vec4(bytes_of(w, 0u) & 0xFFu); }

#elif defined(Q6_K)
// 128 bytes of low nibbles, 64 bytes of high bit pairs, 16 int8 scales (one per 16 elements,
// in element order), d; x = (d * sc) * (q - 32). In each half of 128 elements, element
// 32 * quarter + l takes the low (quarters 0, 1) or high (2, 3) nibble of low byte l + 32 *
// (quarter & 1) and bits 2 * quarter of high byte l.
const uint kBlock = 256u;
const uint kBlockBytes = 210u;
const uint kGroup = 16u;

vec2 group_scale(uint block, uint g) {
  const int sc = (int(byte_at(block + 192u + g)) << 24) >> 24;
  return vec2(f16_at(block + 208u) * float(sc), 0.0);
}

vec4 codes4(uint block, uint j) {
  const uint half_ = j >> 7u, quarter = (j >> 5u) & 3u, l = j & 31u;
  const uint low = word_at(block + half_ * 64u + (quarter & 1u) * 32u + l);
  const uint high = word_at(block + 128u + half_ * 32u + l);
  const uvec4 q = (bytes_of(low, (quarter >> 1u) * 4u) & 0xFu) | ((bytes_of(high, quarter * 2u) & 3u) << 4u);
  return vec4(ivec4(q) - 32);
}

// Span s: in half s / 4, elements 8 (s % 4) .. + 7 of each quarter q (runs 2q and 2q + 1): two
// words of each of the half's two low-nibble runs and of its high bit pairs, and the scales of
// groups 2q + s % 4 / 2, which lie two bytes apart.
const uint kSpanGroups = 4u;
uint span_element(uint span, uint i) { return (span >> 2u) * 128u + (i >> 1u) * 32u + (span & 3u) * 8u + (i & 1u) * 4u; }
uint span_group(uint i) { return i >> 1u; }
// The 16 scale bytes and d.
struct Head { uvec4 scales; float d; };
Head block_head(uint block) {
  uint b[8];
  words_at(block + 192u, 4u, b);
  return Head(uvec4(b[0], b[1], b[2], b[3]), f16_at(block + 208u));
}
void span_scales(Head head, uint block, uint span, out vec2 sc[kSpanGroups]) {
  const uint first = (span >> 2u) * 8u + ((span & 3u) >> 1u);  // scale byte of quarter 0
  for (uint q = 0u; q < 4u; ++q) {
    const uint at = first + 2u * q;
    sc[q] = vec2(head.d * float(int(head.scales[at >> 2u] << (24u - (at & 3u) * 8u)) >> 24), 0.0);
  }
}
void span_words(uint block, uint span, out uint w[8]) {
  const uint half_ = span >> 2u, part = span & 3u;
  uint low[8], odd[8], high[8];  // quarters 0 and 2, 1 and 3; all four
  words_at(block + half_ * 64u + part * 8u, 2u, low);
  words_at(block + half_ * 64u + 32u + part * 8u, 2u, odd);
  words_at(block + 128u + half_ * 32u + part * 8u, 2u, high);
  const uint lows[4] = uint[4](low[0], low[1], odd[0], odd[1]);
  for (uint i = 0u; i < 8u; ++i) {
    const uint q = i >> 1u, j = i & 1u;
    w[i] = ((lows[(q & 1u) * 2u + j] >> ((q >> 1u) * 4u)) & 0x0F0F0F0Fu) | (((high[j] >> (q * 2u)) & 0x03030303u) << 4u);
  }
}
vec4 span_codes(uint w) { return vec4(ivec4(bytes_of(w, 0u) & 0xFFu) - 32); }

#else
#error "define one of Q8_0, Q4_0, Q4_K, Q6_K"
#endif

#if defined(Q8_0) || defined(Q4_0)
// A block is one span, with one scale: its runs in order, nothing shared between spans.
const uint kSpanGroups = 1u;
uint span_element(uint span, uint i) { return 4u * i; }
uint span_group(uint i) { return 0u; }
struct Head { uint none; };
Head block_head(uint block) { return Head(0u); }
void span_scales(Head head, uint block, uint span, out vec2 sc[kSpanGroups]) { sc[0] = group_scale(block, 0u); }
#endif

// Elements k..k+3 (k a multiple of 4) of the row at byte `row`.
vec4 dequant4(uint row, uint k) {
  const uint block = row + k / kBlock * kBlockBytes;
  const uint j = k % kBlock;
  const vec2 s = group_scale(block, j / kGroup);
  return codes4(block, j) * s.x + s.y;
}
