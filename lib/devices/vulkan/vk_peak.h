// SPDX-License-Identifier: MIT
#pragma once
// The Vulkan backend's peak-arithmetic probe (Backend::run_peak_kernel): peak_fma.comp over
// enough workgroups to fill the device, as many iterations as make up the requested FLOPs.
//
// F32 always; F16 where the device has shaderFloat16; BF16 and non-float types are
// Error(unsupported) with the reason. Writes only a scratch buffer it allocates itself.
// Threading: the backend's thread, like every Backend call.

#include "bk/tensor.h"

namespace bk {

class VulkanBackend;

// Runs on `backend`'s stream and waits. Returns the exact FLOPs performed (a multiply-add
// counts two), at least `flops` rounded up to one iteration of the whole grid. Throws
// Error(invalid_argument) for flops that is not a positive finite number.
double vulkan_run_peak_kernel(VulkanBackend& backend, DType type, double flops);

}  // namespace bk
