// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_ops.h"

#include <algorithm>

#include "bk/ops.h"
#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_dispatch.h"

namespace bk {
namespace {

constexpr uint32_t kElementGroup = 256;    // local_size_x of the element-wise kernels
constexpr uint32_t kMatTile = 64;          // kTileM = kTileN of mul_mat.comp
constexpr uint32_t kLaneRows = 64 * 4;     // kRows of mul_mat_lanes.comp (ROWS in shaders.cmake)
constexpr uint32_t kLaneCols = 8;          // kCols of mul_mat_lanes.comp (COLS in shaders.cmake)
constexpr uint32_t kShuffleRows = 64 * 4;  // the same for the SUBGROUP build (_lanes_sg)
constexpr uint32_t kShuffleCols = 16;
constexpr uint32_t kShuffleShare = 8;  // kShare of mul_mat_lanes.comp: lanes per subgroup needed
constexpr uint32_t kVecRows = 4;       // kRows of mul_vec_quant.comp
// Columns up to which GPUs take mul_vec_quant.comp for quantized weights: at decode widths
// reading W is the cost, and the tiled kernel's 64 columns would be mostly idle.
constexpr int64_t kVecMaxColumns = 8;

// The kernel of `first` (one of four in DType order, q8_0 first) for quantized dtype t.
VulkanKernel quantized(VulkanKernel first, DType t) {
  return static_cast<VulkanKernel>(static_cast<int>(first) + static_cast<int>(t) -
                                   static_cast<int>(DType::Q8_0));
}

uint32_t ceil_div(int64_t n, uint32_t d) { return static_cast<uint32_t>((n + d - 1) / d); }

// a, b (optional) and d's layouts and dtypes; b's dtype defaults to a's.
VulkanKernelArgs args_for(const Tensor& a, const Tensor* b, const Tensor& d, uint32_t variant = 0) {
  VulkanKernelArgs args;
  vulkan_set_layout(args.ne_a, args.nb_a, a);
  if (b != nullptr) vulkan_set_layout(args.ne_b, args.nb_b, *b);
  vulkan_set_layout(args.ne_d, args.nb_d, d);
  args.types = vulkan_pack_types(a.type, b != nullptr ? b->type : a.type, d.type, variant);
  return args;
}

// The element-wise kernels' vec4 path (variant 1 of elementwise.glsl): F32 rows that are
// contiguous and start at multiples of 4 elements, and b's rows as long as a's.
bool vec4_rows(const Tensor& t, int64_t row_length) {
  if (t.type != DType::F32 || t.ne[0] != row_length || t.nb[0] != sizeof(float) || row_length % 4 != 0) {
    return false;
  }
  for (size_t i = 1; i < kMaxDims; ++i) {
    if (t.nb[i] / sizeof(float) % 4 != 0) return false;
  }
  return reinterpret_cast<uintptr_t>(t.data) % (4 * sizeof(float)) == 0;
}

// The flat kernels' operands (elementwise_flat.glsl): F32, contiguous, of a's shape (no
// broadcast) and a whole number of vec4s from a multiple of 4 elements.
bool flat_vec4(const Tensor& t, const Tensor& a) {
  return t.type == DType::F32 && t.is_contiguous() && same_shape(t, a) && a.nelements() % 4 == 0 &&
         reinterpret_cast<uintptr_t>(t.data) % (4 * sizeof(float)) == 0;
}

// Row items each invocation of the general element-wise kernel takes on. On a CPU device
// (lavapipe) a workgroup's setup (its row's indices, integer divisions included, worked out
// lane by lane) costs more than a few hundred items, so a narrow workgroup walks a whole row of
// up to 4096 items, and longer rows are split only for parallelism (dispatch_rows caps the
// blocks per row). GPUs keep one item per invocation, the most parallel grid.
uint32_t items_per_invocation(const VulkanContext& ctx) { return ctx.info().is_cpu() ? 512 : 1; }

// Rows each workgroup of a row kernel (rows.glsl) takes in turn. Starting a workgroup costs
// about as much as a short row on a CPU device, so there 16 rows share one; GPUs take a row per
// workgroup, the most parallel grid.
uint32_t rows_per_group(const VulkanContext& ctx) { return ctx.info().is_cpu() ? 16 : 1; }

// The element-wise kernels of one op: general, elementwise_flat.glsl, and that reading a and
// b as texels (faster on lavapipe where the device can; see vk_dispatch.h for when it can).
struct ElementwiseKernels {
  VulkanKernel general;
  VulkanKernel flat;
  VulkanKernel texel;
};

// b: the second operand of a binary op, nullptr for a unary one.
void record_elementwise(VulkanRecorder& rec, const ElementwiseKernels& kernels, const Tensor& node,
                        const Tensor* b, float f0 = 0) {
  const Tensor& a = *node.src[0];
  if (flat_vec4(a, a) && flat_vec4(node, a) && (b == nullptr || flat_vec4(*b, a))) {
    VulkanKernelArgs args = args_for(a, b, node);
    args.f0 = f0;
    args.u0 = static_cast<uint32_t>(a.nelements() / 4);
    const bool texels = rec.texel_bindable(a) && (b == nullptr || rec.texel_bindable(*b));
    return rec.dispatch_items(texels ? kernels.texel : kernels.flat, args, {&a, b, &node}, args.u0,
                              kElementGroup);
  }
  const VulkanKernel kernel = kernels.general;
  const bool vec4 =
      vec4_rows(a, a.ne[0]) && vec4_rows(node, a.ne[0]) && (b == nullptr || vec4_rows(*b, a.ne[0]));
  VulkanKernelArgs args = args_for(a, b, node, vec4 ? 1 : 0);
  args.f0 = f0;
  rec.dispatch_rows(kernel, args, {&a, b, &node}, static_cast<uint64_t>(vec4 ? a.ne[0] / 4 : a.ne[0]),
                    static_cast<uint64_t>(a.nrows()),
                    rec.specialized_width(kernel) * items_per_invocation(rec.context()));
}

void record_rows(VulkanRecorder& rec, VulkanKernel kernel, const Tensor& node, const Tensor* b, float f0,
                 uint32_t u0) {
  const Tensor& a = *node.src[0];
  VulkanKernelArgs args = args_for(a, b, node);
  args.f0 = f0;
  args.u0 = u0;
  args.u1 = rows_per_group(rec.context());
  rec.dispatch_items(kernel, args, {&a, b, &node}, static_cast<uint64_t>(a.nrows()), args.u1);
}

void record_rope(VulkanRecorder& rec, const Tensor& node) {
  const Tensor& a = *node.src[0];
  const Tensor& pos = *node.src[1];
  const RopeParams p = rope_params(node);
  VulkanKernelArgs args = args_for(a, &pos, node, p.mode == RopeMode::neox ? 1 : 0);
  args.f0 = p.freq_base;
  args.u0 = static_cast<uint32_t>(p.n_dims);
  args.u1 = rows_per_group(rec.context());
  rec.dispatch_items(VulkanKernel::rope, args, {&a, &pos, &node}, static_cast<uint64_t>(a.nrows()), args.u1);
}

// `count` indices of t along `dim` from `first`: the same memory, a smaller extent.
Tensor slice(const Tensor& t, size_t dim, int64_t first, int64_t count) {
  Tensor s = t;
  s.ne[dim] = count;
  s.data = static_cast<char*>(t.data) + static_cast<size_t>(first) * t.nb[dim];
  return s;
}

// A table larger than one storage binding is read in blocks of its rows: each dispatch writes
// the result rows whose index falls in its block (args.u0 = the block's first row, args.u1 =
// the table's rows, past which an index yields NaN).
void record_get_rows(VulkanRecorder& rec, const Tensor& node) {
  const Tensor& table = *node.src[0];
  const Tensor& indices = *node.src[1];
  const int64_t block =
      std::max<int64_t>(vulkan_rows_per_binding(rec.context().info().props.limits, table), 1);
  int64_t first = 0;
  do {  // at least once: an empty table still gives NaN rows
    const Tensor part = slice(table, 1, first, std::min(block, table.ne[1] - first));
    VulkanKernelArgs args = args_for(part, &indices, node);
    args.u0 = static_cast<uint32_t>(first);
    args.u1 = static_cast<uint32_t>(table.ne[1]);
    const VulkanKernel kernel = is_quantized(table.type) ? quantized(VulkanKernel::get_rows_q8_0, table.type)
                                                         : VulkanKernel::get_rows;
    rec.dispatch_items(kernel, args, {&part, &indices, &node}, static_cast<uint64_t>(node.nelements()),
                       kElementGroup);
    first += block;
  } while (first < table.ne[1]);
}

void record_copy(VulkanRecorder& rec, VulkanKernel kernel, const Tensor& node, const Tensor* b) {
  const Tensor& a = *node.src[0];
  const VulkanKernelArgs args = args_for(a, b, node);
  rec.dispatch_items(kernel, args, {&a, b, &node}, static_cast<uint64_t>(node.nelements()), kElementGroup);
}

enum class MulMatKind { tiled, lanes, lanes_subgroup };

// Shared-memory tiles suit GPUs; on CPU devices (lavapipe) the lane kernel is several times
// faster (see mul_mat_lanes.comp), and faster again where subgroup shuffles can share the
// activations (they need kShuffleShare lanes per subgroup).
MulMatKind mul_mat_kind(const VulkanContext& ctx) {
  const bool shuffle = ctx.info().compute_subgroup_shuffle && ctx.info().subgroup_size >= kShuffleShare;
  switch (ctx.options().mul_mat) {
    case VulkanMulMatKernel::tiled:
      return MulMatKind::tiled;
    case VulkanMulMatKernel::lanes:
      return shuffle ? MulMatKind::lanes_subgroup : MulMatKind::lanes;
    case VulkanMulMatKernel::lanes_plain:
      return MulMatKind::lanes;
    case VulkanMulMatKernel::automatic:
      break;
  }
  if (!ctx.info().is_cpu()) return MulMatKind::tiled;
  return shuffle ? MulMatKind::lanes_subgroup : MulMatKind::lanes;
}

// `texels`: both operands bind as texel views (vk_dispatch.h), which the shuffle lane kernel
// can read through: llvmpipe fetches texels as one vector gather where its storage loads loop
// over the lanes, and the weight reads are most of that kernel's loads (docs/performance.md,
// "Vulkan mul_mat reads its operands through texel views").
VulkanKernel mul_mat_kernel(DType w, MulMatKind kind, bool texels) {
  // Rows: MulMatKind, then the shuffle kernel reading texels; columns: F32, F16, BF16 weights.
  static constexpr VulkanKernel kKernels[4][3] = {
      {VulkanKernel::mul_mat_f32, VulkanKernel::mul_mat_f16, VulkanKernel::mul_mat_bf16},
      {VulkanKernel::mul_mat_lanes_f32, VulkanKernel::mul_mat_lanes_f16, VulkanKernel::mul_mat_lanes_bf16},
      {VulkanKernel::mul_mat_lanes_sg_f32, VulkanKernel::mul_mat_lanes_sg_f16,
       VulkanKernel::mul_mat_lanes_sg_bf16},
      {VulkanKernel::mul_mat_lanes_sg_texel_f32, VulkanKernel::mul_mat_lanes_sg_texel_f16,
       VulkanKernel::mul_mat_lanes_sg_texel_bf16}};
  const size_t row = kind == MulMatKind::lanes_subgroup && texels ? 3 : static_cast<size_t>(kind);
  const size_t column = w == DType::F16 ? 1 : w == DType::BF16 ? 2 : 0;
  return kKernels[row][column];
}

// The lane kernel's vec4 path: K contiguous in both operands, every stride a multiple of 4
// elements and the data at a multiple of 4 elements. Buffers and chunks start page-aligned,
// so the address decides the offset in the bound range too (whatever the binding alignment).
bool vec4_layout(const Tensor& t) {
  const size_t esize = dtype_size(t.type);
  if (t.nb[0] != esize || t.ne[0] % 4 != 0) return false;
  for (size_t i = 1; i < kMaxDims; ++i) {
    if (t.nb[i] / esize % 4 != 0) return false;
  }
  return reinterpret_cast<uintptr_t>(t.data) % (4 * esize) == 0;
}

// d = w x for quantized w: kernels that decode its blocks as they read them. Their blocks of d
// are the float kernels' (shaders.cmake), and GPUs take mul_vec_quant.comp at decode widths.
void record_quantized_mul_mat_block(VulkanRecorder& rec, MulMatKind kind, const Tensor& w, const Tensor& x,
                                    const Tensor& node) {
  const VulkanKernelArgs args = args_for(w, &x, node, vec4_layout(x) ? 1 : 0);
  const auto batches = static_cast<uint32_t>(x.ne[2] * x.ne[3]);
  switch (kind) {
    case MulMatKind::tiled:
      if (x.ne[1] <= kVecMaxColumns) {
        return rec.dispatch_tiles(quantized(VulkanKernel::mul_vec_q8_0, w.type), args, {&w, &x, &node},
                                  {ceil_div(w.ne[1], kVecRows), static_cast<uint32_t>(x.ne[1]), batches});
      }
      return rec.dispatch_tiles(quantized(VulkanKernel::mul_mat_q8_0, w.type), args, {&w, &x, &node},
                                {ceil_div(w.ne[1], kMatTile), ceil_div(x.ne[1], kMatTile), batches});
    case MulMatKind::lanes:
      return rec.dispatch_tiles(quantized(VulkanKernel::mul_mat_quant_q8_0, w.type), args, {&w, &x, &node},
                                {ceil_div(w.ne[1], kLaneRows), ceil_div(x.ne[1], kLaneCols), batches});
    case MulMatKind::lanes_subgroup: {
      // Texel reads, as the float kernels' (mul_mat_kernel): llvmpipe gathers a texel fetch as a
      // vector where a storage load is a loop over the lanes, and the weight reads dominate.
      const bool texels = rec.texel_bindable(w) && rec.texel_bindable(x);
      return rec.dispatch_tiles(
          quantized(texels ? VulkanKernel::mul_mat_quant_sg_texel_q8_0 : VulkanKernel::mul_mat_quant_sg_q8_0,
                    w.type),
          args, {&w, &x, &node}, {ceil_div(w.ne[1], kShuffleRows), ceil_div(x.ne[1], kShuffleCols), batches});
    }
  }
}

// d = w x for one block of w's rows (all of them, or those of one binding).
void record_mul_mat_block(VulkanRecorder& rec, MulMatKind kind, const Tensor& w, const Tensor& x,
                          const Tensor& node) {
  if (is_quantized(w.type)) return record_quantized_mul_mat_block(rec, kind, w, x, node);
  const bool lanes = kind != MulMatKind::tiled;
  const VulkanKernelArgs args = args_for(w, &x, node, lanes && vec4_layout(w) && vec4_layout(x) ? 1 : 0);
  // Rows m and columns n of d per workgroup, by MulMatKind.
  static constexpr uint32_t kBlock[3][2] = {
      {kMatTile, kMatTile}, {kLaneRows, kLaneCols}, {kShuffleRows, kShuffleCols}};
  const auto [rows, cols] = kBlock[static_cast<size_t>(kind)];
  const bool texels = rec.texel_bindable(w) && rec.texel_bindable(x);
  rec.dispatch_tiles(
      mul_mat_kernel(w.type, kind, texels), args, {&w, &x, &node},
      {ceil_div(w.ne[1], rows), ceil_div(x.ne[1], cols), static_cast<uint32_t>(x.ne[2] * x.ne[3])});
}

// A weight larger than one storage binding is multiplied in blocks of its rows, each writing
// its rows of d (a strided slice), blocks of whole workgroup tiles where they are that large.
void record_mul_mat(VulkanRecorder& rec, const Tensor& node) {
  const Tensor& w = *node.src[0];
  const Tensor& x = *node.src[1];
  const MulMatKind kind = mul_mat_kind(rec.context());
  int64_t block = vulkan_rows_per_binding(rec.context().info().props.limits, w);
  if (block >= w.ne[1]) return record_mul_mat_block(rec, kind, w, x, node);
  const int64_t tile = kind == MulMatKind::tiled ? kMatTile : kLaneRows;
  if (block > tile) block = block / tile * tile;
  for (int64_t first = 0; first < w.ne[1]; first += block) {
    const int64_t count = std::min(block, w.ne[1] - first);
    record_mul_mat_block(rec, kind, slice(w, 1, first, count), x, slice(node, 0, first, count));
  }
}

}  // namespace

void vulkan_record_node(VulkanRecorder& rec, const Tensor& node) {
  if (node.nelements() == 0) return;
  switch (node.op) {
    case Op::add:
      return record_elementwise(rec, {VulkanKernel::add, VulkanKernel::add_flat, VulkanKernel::add_texel},
                                node, node.src[1]);
    case Op::mul:
      return record_elementwise(rec, {VulkanKernel::mul, VulkanKernel::mul_flat, VulkanKernel::mul_texel},
                                node, node.src[1]);
    case Op::scale:
      return record_elementwise(rec,
                                {VulkanKernel::scale, VulkanKernel::scale_flat, VulkanKernel::scale_texel},
                                node, nullptr, scale_factor(node));
    case Op::silu:
      return record_elementwise(rec, {VulkanKernel::silu, VulkanKernel::silu_flat, VulkanKernel::silu_texel},
                                node, nullptr);
    case Op::gelu:
      return record_elementwise(rec, {VulkanKernel::gelu, VulkanKernel::gelu_flat, VulkanKernel::gelu_texel},
                                node, nullptr);
    case Op::mul_mat:
      return record_mul_mat(rec, node);
    case Op::rms_norm:
      return record_rows(rec, VulkanKernel::rms_norm, node, nullptr, rms_norm_eps(node), 0);
    case Op::soft_max:
      return record_rows(rec, VulkanKernel::soft_max, node, node.src[1], soft_max_scale(node),
                         node.src[1] != nullptr ? 1 : 0);
    case Op::rope:
      return record_rope(rec, node);
    case Op::get_rows:
      return record_get_rows(rec, node);
    case Op::cpy:  // src[1] is the destination, which the node views
    case Op::cont:
      if (same_shape(*node.src[0], node)) {
        return record_elementwise(
            rec, {VulkanKernel::copy, VulkanKernel::copy_flat, VulkanKernel::copy_texel}, node, nullptr);
      }
      return record_copy(rec, VulkanKernel::cpy, node, nullptr);
    case Op::none:
    case Op::reshape:
    case Op::view:
    case Op::permute:
    case Op::transpose:
      return;
  }
}

}  // namespace bk
