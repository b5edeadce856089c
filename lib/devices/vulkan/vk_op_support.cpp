// SPDX-License-Identifier: MIT
// vulkan_unsupported_reason: what the kernels of this plugin can compute (see vk_ops.h).
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "devices/vulkan/vk_ops.h"
#include "devices/vulkan/vk_properties.h"

namespace bk {
namespace {

bool is_float(DType t) { return dtype_traits(t).is_float; }
// What mul_mat's weights and get_rows' table may be: a float or a quantized (ggml block) dtype.
bool is_float_or_quantized(DType t) { return is_float(t) || is_quantized(t); }

std::string type_reason(const std::string& device, const Tensor& node, const char* rule) {
  std::string types;
  for (const Tensor* s : node.src) {
    if (s != nullptr) types += fmt::format("{}{}", types.empty() ? "" : ", ", dtype_name(s->type));
  }
  return fmt::format("{} has no {} kernel for dtypes ({}) -> {}: {}", device, op_name(node.op), types,
                     dtype_name(node.type), rule);
}

// The dtype rules of each kernel; the builders in core/ops.h enforce the same, so this only
// rejects nodes made by hand.
std::string dtype_reason(const std::string& device, const Tensor& node) {
  const Tensor* a = node.src[0];
  const Tensor* b = node.src[1];
  if (a != nullptr && is_quantized(a->type) && node.op != Op::mul_mat && node.op != Op::get_rows) {
    return type_reason(device, node,
                       "only mul_mat (as weights) and get_rows (as the table) read quantized data");
  }
  switch (node.op) {
    case Op::add:
    case Op::mul:
      if (is_float(a->type) && is_float(b->type) && is_float(node.type)) return {};
      return type_reason(device, node, "needs float sources and result");
    case Op::scale:
    case Op::silu:
    case Op::gelu:
    case Op::rms_norm:
    case Op::cpy:
    case Op::cont:
      if (is_float(a->type) && is_float(node.type)) return {};
      return type_reason(device, node, "needs a float source and result");
    case Op::soft_max:
      if (is_float(a->type) && is_float(node.type) && (b == nullptr || b->type == DType::F32)) return {};
      return type_reason(device, node, "needs a float source and result and an F32 mask");
    case Op::rope:
      if (is_float(a->type) && is_float(node.type) && b->type == DType::I32) return {};
      return type_reason(device, node, "needs a float source and result and I32 positions");
    case Op::get_rows:
      if (is_float_or_quantized(a->type) && b->type == DType::I32 && node.type == DType::F32) return {};
      return type_reason(device, node, "needs a float or quantized table, I32 indices and an F32 result");
    case Op::mul_mat:
      if (is_float_or_quantized(a->type) && b->type == DType::F32 && node.type == DType::F32) return {};
      return type_reason(
          device, node,
          "needs F32, F16, BF16 or quantized (q8_0, q4_0, q4_k, q6_k) weights, F32 activations "
          "and an F32 result");
    default:
      return fmt::format("{} has no kernel for op {}", device, op_name(node.op));
  }
}

// A kernel binds each tensor as one storage-buffer range and indexes it with 32-bit integers.
std::string size_reason(const VulkanDeviceInfo& info, const std::string& device, const Tensor& node,
                        const Tensor& t) {
  const uint32_t range = info.props.limits.maxStorageBufferRange;
  if (t.nbytes() > range) {
    return fmt::format(
        "{}: {} needs tensor '{}' ({} {}, {} bytes) in one storage binding, above the device's "
        "maxStorageBufferRange of {} bytes",
        device, op_name(node.op), t.name, dtype_name(t.type), t.shape_string(), t.nbytes(), range);
  }
  if (t.nelements() > std::numeric_limits<uint32_t>::max()) {
    return fmt::format("{}: {} tensor '{}' has {} elements; kernels index at most 2^32 - 1", device,
                       op_name(node.op), t.name, t.nelements());
  }
  return {};
}

}  // namespace

std::string vulkan_unsupported_reason(const VulkanDeviceInfo& info, const std::string& device,
                                      const Tensor& node) {
  if (node.op == Op::none || op_is_view(node.op)) return {};
  if (!info.storage_buffer_16bit) {
    return fmt::format(
        "{} ('{}') lacks storageBuffer16BitAccess, which every bk Vulkan kernel needs to read F16 / BF16 "
        "data; update the driver",
        device, info.props.deviceName);
  }
  if (std::string why = dtype_reason(device, node); !why.empty()) return why;
  if (std::string why = size_reason(info, device, node, node); !why.empty()) return why;
  for (const Tensor* s : node.src) {
    if (s == nullptr) continue;
    // mul_mat's weight and get_rows' table are taken in blocks of rows that fit (vk_ops.h).
    const bool in_blocks = (node.op == Op::mul_mat || node.op == Op::get_rows) && s == node.src[0];
    if (in_blocks && vulkan_rows_per_binding(info.props.limits, *s) > 0 &&
        s->nelements() <= std::numeric_limits<uint32_t>::max()) {
      continue;
    }
    if (std::string why = size_reason(info, device, node, *s); !why.empty()) return why;
  }
  return {};
}

int64_t vulkan_rows_per_binding(const VkPhysicalDeviceLimits& limits, const Tensor& t) {
  if (t.nbytes() <= limits.maxStorageBufferRange) return t.ne[1];
  if (t.ne[2] != 1 || t.ne[3] != 1) return 0;
  // Room for the few bytes a binding's start is moved back by to meet the offset alignment.
  const size_t slack = std::max<size_t>(limits.minStorageBufferOffsetAlignment, 16) + 16;
  const size_t budget = limits.maxStorageBufferRange > slack ? limits.maxStorageBufferRange - slack : 0;
  return static_cast<int64_t>(budget / t.nb[1]);
}

}  // namespace bk
