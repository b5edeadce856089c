// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_peak.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "bk/buffer.h"
#include "bk/error.h"
#include "devices/vulkan/vk_backend.h"
#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_dispatch.h"
#include "devices/vulkan/vk_kernel_args.h"

namespace bk {
namespace {

constexpr uint32_t kGroupSize = 64;            // local_size_x of peak_fma.comp
constexpr double kFlopsPerIteration = 1024.0;  // kUnroll (16) x kChains (8) x vec4 x 2 per invocation
// Enough invocations to fill any device's lanes several times over (so every compute unit has
// work while others finish); one 4-byte result each.
constexpr uint64_t kInvocations = uint64_t{1} << 16;
// Iterations per dispatch: a dispatch that runs for seconds risks the driver's watchdog.
constexpr uint64_t kMaxIterations = uint64_t{1} << 16;

VulkanKernel peak_kernel(const VulkanContext& ctx, DType type) {
  switch (type) {
    case DType::F32:
      return VulkanKernel::peak_fma_f32;
    case DType::F16:
      if (ctx.info().shader_float16) return VulkanKernel::peak_fma_f16;
      throw Error(ErrorCode::unsupported,
                  fmt::format("{} ('{}') has no F16 arithmetic in shaders (shaderFloat16 is not supported)",
                              ctx.name(), ctx.info().props.deviceName));
    case DType::BF16:
      throw Error(ErrorCode::unsupported,
                  fmt::format("{}: no BF16 peak kernel: BF16 arithmetic needs VK_KHR_shader_bfloat16, which "
                              "bk's Vulkan kernels do not use (BF16 weights are computed in F32)",
                              ctx.name()));
    default:
      throw Error(ErrorCode::unsupported,
                  fmt::format("{}: no peak kernel for {}: only F32 and F16 arithmetic is probed", ctx.name(),
                              dtype_name(type)));
  }
}

}  // namespace

double vulkan_run_peak_kernel(VulkanBackend& backend, DType type, double flops) {
  VulkanContext& ctx = backend.context();
  const VulkanKernel kernel = peak_kernel(ctx, type);
  if (!std::isfinite(flops) || flops <= 0) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("{}: run_peak_kernel needs a positive number of FLOPs, not {}", ctx.name(), flops));
  }
  const double per_iteration = kFlopsPerIteration * static_cast<double>(kInvocations);
  const double wanted = std::ceil(flops / per_iteration);
  if (wanted > 1e12) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("{}: run_peak_kernel of {:.3g} FLOPs is beyond any sensible probe", ctx.name(), flops));
  }
  const auto iterations = static_cast<uint64_t>(wanted);

  // Finish earlier work first: the probe's timing must be its own.
  backend.synchronize();
  Tensor scratch;
  scratch.type = DType::F32;
  scratch.ne = {static_cast<int64_t>(kInvocations), 1, 1, 1};
  scratch.nb = packed_strides(scratch.type, scratch.ne);
  scratch.name = "peak scratch";
  const std::unique_ptr<Buffer> buffer = backend.device().buffer_type().alloc(scratch.nbytes());
  buffer->place_tensor(scratch, 0);

  VulkanRecorder rec(ctx, backend.stream(), backend.descriptors());
  VulkanKernelArgs args;
  vulkan_set_layout(args.ne_d, args.nb_d, scratch);
  args.types = vulkan_pack_types(DType::F32, DType::F32, DType::F32);
  args.f0 = 0.999f;  // acc * 0.999 + 0.001 stays in [0, 2] in any precision
  args.f1 = 0.001f;
  for (uint64_t done = 0; done < iterations; done += kMaxIterations) {
    args.u0 = static_cast<uint32_t>(std::min(kMaxIterations, iterations - done));
    rec.dispatch_items(kernel, args, {&scratch, nullptr, &scratch}, kInvocations, kGroupSize);
  }
  backend.stream().submit();
  backend.synchronize();
  return static_cast<double>(iterations) * per_iteration;
}

}  // namespace bk
