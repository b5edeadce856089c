// SPDX-License-Identifier: MIT
#include "devices/cuda/cuda_error.h"

#include <fmt/format.h>

#include "devices/cuda/cuda_properties.h"

namespace bk {
namespace {

const char* hint(cudaError_t err) noexcept {
  switch (err) {
    case cudaErrorMemoryAllocation:
      return "free device memory or use smaller sizes";
    case cudaErrorInsufficientDriver:
      return "install or update the NVIDIA driver";
    case cudaErrorNoDevice:
      return "no NVIDIA GPU is visible (check CUDA_VISIBLE_DEVICES)";
    case cudaErrorLaunchTimeout:
      return "a kernel ran into the display watchdog; use a GPU without a display";
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
      return "the GPU context is lost for this process; restart it, and report the op that ran";
    case cudaErrorECCUncorrectable:
      return "the GPU reported an uncorrectable memory error; check nvidia-smi";
    case cudaErrorDevicesUnavailable:
      return "the GPU is in exclusive mode and used by another process";
    default:
      return "check the driver installation (nvidia-smi) and its logs";
  }
}

}  // namespace

std::string cuda_error_code(cudaError_t err) {
  return fmt::format("{}, {}", cudaGetErrorName(err), static_cast<int>(err));
}

ErrorCode cuda_bk_error_code(cudaError_t err) noexcept {
  switch (err) {
    case cudaErrorMemoryAllocation:
      return ErrorCode::out_of_memory;
    case cudaErrorInsufficientDriver:
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice:
      return ErrorCode::not_found;
    case cudaErrorLaunchTimeout:
      return ErrorCode::timeout;
    default:
      return ErrorCode::device_error;
  }
}

std::string cuda_error_message(cudaError_t err, const char* call, std::string_view who,
                               std::string_view detail) {
  const std::string context = detail.empty() ? std::string() : fmt::format(" {}", detail);
  return fmt::format("{}: {}{} failed ({}): {}; {}", who, call, context, cuda_error_code(err),
                     cudaGetErrorString(err), hint(err));
}

void cuda_fail(cudaError_t err, const char* call, std::string_view who, std::string_view detail) {
  cudaGetLastError();
  throw Error(cuda_bk_error_code(err), cuda_error_message(err, call, who, detail));
}

void cublas_fail(int status, const char* status_name, const char* call, std::string_view who,
                 std::string_view detail) {
  constexpr int kAllocFailed = 3;  // CUBLAS_STATUS_ALLOC_FAILED
  const std::string context = detail.empty() ? std::string() : fmt::format(" {}", detail);
  throw Error(status == kAllocFailed ? ErrorCode::out_of_memory : ErrorCode::device_error,
              fmt::format("{}: {}{} failed ({}, {}); check the shapes and the cuBLAS installation", who, call,
                          context, status_name != nullptr ? status_name : "CUBLAS_STATUS", status));
}

std::string cuda_no_device_status(cudaError_t err, int driver_version, int runtime_version) {
  const std::string call = fmt::format("cudaGetDeviceCount: {}", cuda_error_code(err));
  if (err == cudaSuccess) return "no CUDA device found (cudaGetDeviceCount returned 0)";
  if (err == cudaErrorInsufficientDriver) {
    if (driver_version == 0) return fmt::format("CUDA driver not found ({})", call);
    return fmt::format(
        "the CUDA driver supports CUDA {}, older than this plugin's runtime {} ({}); update the NVIDIA "
        "driver",
        cuda_version_string(driver_version), cuda_version_string(runtime_version), call);
  }
  if (err == cudaErrorNoDevice)
    return fmt::format("no CUDA device found ({}); check CUDA_VISIBLE_DEVICES", call);
  return fmt::format("CUDA initialisation failed ({}): {}", call, cudaGetErrorString(err));
}

}  // namespace bk
