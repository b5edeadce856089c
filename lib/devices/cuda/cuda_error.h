// SPDX-License-Identifier: MIT
#pragma once
// The one place where cudaError_t and cublasStatus_t become bk::Error.
//
// Every CUDA runtime call that can fail goes through cuda_check(), so every message has one
// shape: "<device>: <call> failed (<cudaErrorName>, <number>): <description>; <what to do>".
// `who` names the device ("CUDA0"), or "CUDA" before a device exists.

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

#include "bk/error.h"

namespace bk {

// "cudaErrorMemoryAllocation, 2": the code's name and number, as status lines and errors show it.
std::string cuda_error_code(cudaError_t err);
// The bk error code for a CUDA error: allocation failures -> out_of_memory, a missing or too old
// driver and absent devices -> not_found, launch timeouts -> timeout, everything else
// device_error.
ErrorCode cuda_bk_error_code(cudaError_t err) noexcept;
// The full message for a failed call (without throwing), for callers that add their own context.
std::string cuda_error_message(cudaError_t err, const char* call, std::string_view who,
                               std::string_view detail = {});

// Throws the converted error. Clears the runtime's last-error slot first, so that a
// recoverable failure (an allocation too large) does not resurface in a later, unrelated check.
[[noreturn]] void cuda_fail(cudaError_t err, const char* call, std::string_view who,
                            std::string_view detail = {});

inline void cuda_check(cudaError_t err, const char* call, std::string_view who,
                       std::string_view detail = {}) {
  if (err != cudaSuccess) cuda_fail(err, call, who, detail);
}

// The reg's one-line status when cudaGetDeviceCount found nothing: err is what it returned
// (cudaSuccess with a count of 0), driver_version what cudaDriverGetVersion reported (0: no
// driver at all), runtime_version the runtime's. Example: "CUDA driver not found
// (cudaGetDeviceCount: cudaErrorInsufficientDriver, 35)".
std::string cuda_no_device_status(cudaError_t err, int driver_version, int runtime_version);

// cuBLAS statuses, passed as int so that this header needs no cuBLAS header: throws
// Error(device_error) (out_of_memory for CUBLAS_STATUS_ALLOC_FAILED) naming the call and the status.
// `status_name` is cublasGetStatusName's answer, or null when cuBLAS is not loaded.
[[noreturn]] void cublas_fail(int status, const char* status_name, const char* call, std::string_view who,
                              std::string_view detail = {});

}  // namespace bk
