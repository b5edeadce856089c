// SPDX-License-Identifier: MIT
#pragma once
// The CUDA implementation of the op set (core/ops.h): which nodes the kernels can run, and
// running one node on a backend's stream.

#include <string>

#include "bk/tensor.h"
#include "devices/cuda/kernels/cuda_kernels.h"

namespace bk {

class CudaBackend;

// Why the CUDA kernels cannot run `node` ("mul_mat: K = 3000000000 exceeds cuBLAS's int
// range"); empty when they can. Does not check that cuBLAS is loadable (CudaDevice adds that).
std::string cuda_unsupported_reason(const Tensor& node);

// Queues `node` on backend's stream; the backend's device is current. Throws Error(unsupported)
// when cuda_unsupported_reason is not empty, Error(invalid_argument) when a tensor is not in the
// backend's GPU memory, Error(device_error) when a launch fails.
void cuda_compute_node(CudaBackend& backend, const Tensor& node);

// The kernels' view of a tensor.
cuda::KTensor cuda_ktensor(const Tensor& tensor) noexcept;

// MUL_MAT through cuBLAS (cuda_mul_mat.cpp).
void cuda_mul_mat(CudaBackend& backend, const Tensor& node);

}  // namespace bk
