// SPDX-License-Identifier: MIT
// cuda_compute_node (cuda_ops.h): checks a node, then launches its kernel; MUL_MAT goes to
// cuda_mul_mat.cpp.

#include "devices/cuda/cuda_ops.h"

#include <fmt/format.h>

#include <initializer_list>

#include "bk/error.h"
#include "bk/ops.h"
#include "devices/cuda/cuda_backend.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_error.h"

namespace bk {
namespace {

using cuda::KBinary;
using cuda::KTensor;
using cuda::KUnary;

}  // namespace

KTensor cuda_ktensor(const Tensor& t) noexcept {
  KTensor k;
  k.data = static_cast<char*>(t.data);
  for (int i = 0; i < kMaxDims; ++i) {
    k.ne[i] = t.ne[static_cast<size_t>(i)];
    k.nb[i] = static_cast<int64_t>(t.nb[static_cast<size_t>(i)]);
  }
  k.type = static_cast<cuda::KType>(static_cast<int32_t>(t.type));
  return k;
}

void cuda_compute_node(CudaBackend& backend, const Tensor& node) {
  const CudaDevice& device = backend.cuda_device();
  if (const std::string why = cuda_unsupported_reason(node); !why.empty()) {
    throw Error(
        ErrorCode::unsupported,
        fmt::format("{} cannot compute node '{}' ({} {} {}): {}; run it on another device", device.name(),
                    node.label(), op_name(node.op), dtype_name(node.type), node.shape_string(), why));
  }
  for (const Tensor* t : std::initializer_list<const Tensor*>{&node, node.src[0], node.src[1], node.src[2]}) {
    if (t != nullptr && !device.holds(*t)) {
      throw Error(
          ErrorCode::invalid_argument,
          fmt::format(
              "{} cannot compute node '{}' ({}): tensor '{}' is in {}, not in {}'s memory; allocate it "
              "from {}'s buffer type or copy it there first",
              device.name(), node.label(), op_name(node.op), t->label(),
              t->buffer != nullptr ? fmt::format("buffer type '{}'", t->buffer->type().name())
                                   : std::string("no buffer"),
              device.name(), device.name()));
    }
  }
  if (node.op == Op::mul_mat) {
    cuda_mul_mat(backend, node);
    return;
  }
  const KTensor r = cuda_ktensor(node);
  const KTensor a = cuda_ktensor(*node.src[0]);
  const cudaStream_t s = backend.stream();
  cudaError_t err = cudaSuccess;
  switch (node.op) {
    case Op::add:
      err = cuda::launch_binary(KBinary::add, r, a, cuda_ktensor(*node.src[1]), s);
      break;
    case Op::mul:
      err = cuda::launch_binary(KBinary::mul, r, a, cuda_ktensor(*node.src[1]), s);
      break;
    case Op::scale:
      err = cuda::launch_unary(KUnary::scale, r, a, scale_factor(node), s);
      break;
    case Op::silu:
      err = cuda::launch_unary(KUnary::silu, r, a, 0.0f, s);
      break;
    case Op::gelu:
      err = cuda::launch_unary(KUnary::gelu, r, a, 0.0f, s);
      break;
    case Op::cpy:
    case Op::cont:
      err = same_shape(node, *node.src[0]) ? cuda::launch_unary(KUnary::copy, r, a, 0.0f, s)
                                           : cuda::launch_reshape_copy(r, a, s);
      break;
    case Op::rms_norm:
      err = cuda::launch_rms_norm(r, a, rms_norm_eps(node), s);
      break;
    case Op::soft_max: {
      const KTensor mask = node.src[1] != nullptr ? cuda_ktensor(*node.src[1]) : KTensor{};
      err = cuda::launch_soft_max(r, a, node.src[1] != nullptr ? &mask : nullptr, soft_max_scale(node), s);
      break;
    }
    case Op::rope: {
      const RopeParams p = rope_params(node);
      err = cuda::launch_rope(r, a, cuda_ktensor(*node.src[1]), p.n_dims, static_cast<int>(p.mode),
                              p.freq_base, s);
      break;
    }
    case Op::get_rows:
      err = cuda::launch_get_rows(r, a, cuda_ktensor(*node.src[1]), s);
      break;
    default:
      break;
  }
  cuda_check(err, "kernel launch", device.name(),
             fmt::format("for node '{}' ({} {})", node.label(), op_name(node.op), node.shape_string()));
}

}  // namespace bk
