// SPDX-License-Identifier: MIT
#pragma once
// cuBLAS, opened at run time (dlopen) on first use.
//
// The plugin links no cuBLAS: loading libcublas and libcublasLt (~600 MB of code) costs
// 0.1-0.5 s, which every `bkctl` run and every test would pay on machines without a GPU if
// the plugin depended on it. It is opened when a CUDA device first needs a GEMM, searched as
// libcublas.so.<toolkit major> on the loader's path, then in the toolkit this plugin was built
// against. When it is missing, MUL_MAT is unsupported on CUDA devices, with that reason.
//
// Handles are pooled per GPU and never destroyed: creating one costs tens of milliseconds, and
// cuBLAS tears its own (static) runtime down at exit in an order this plugin does not control,
// so destroying handles from destructors that run at exit could touch freed state.
//
// Threading: the library is opened once per process and the pools are locked (thread-safe). A
// CublasHandle belongs to one Backend, used by one thread at a time.

#include <cublas_api.h>

#include <string>

namespace bk {

struct CublasFns {
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*set_math_mode)(cublasHandle_t, cublasMath_t) = nullptr;
  const char* (*status_name)(cublasStatus_t) = nullptr;
  cublasStatus_t (*get_version)(cublasHandle_t, int*) = nullptr;
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType, int, const void*, cudaDataType, int, const void*,
                            void*, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  cublasStatus_t (*gemm_batched_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                    const void*, const void* const[], cudaDataType, int, const void* const[],
                                    cudaDataType, int, const void*, void* const[], cudaDataType, int, int,
                                    cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};

// The loaded entry points, or nullptr with the reason in `why` (the same answer every call).
const CublasFns* cublas_library(std::string* why = nullptr);
// Where cuBLAS was loaded from, or why it was not: for describe().
std::string cublas_library_status();

// One cuBLAS handle of GPU `ordinal` bound to a stream, leased from that GPU's pool.
class CublasHandle {
 public:
  // Takes a pooled handle, or creates one on the calling thread's current device (which must be
  // `ordinal`). Throws Error(unsupported) when cuBLAS is missing, Error(device_error) or
  // Error(out_of_memory) when creation fails.
  CublasHandle(int ordinal, cudaStream_t stream, const std::string& who);
  // Unbinds the stream and returns the handle to the pool.
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  cublasHandle_t get() const noexcept { return handle_; }
  const CublasFns& fn() const noexcept { return *fn_; }
  // Throws the converted error unless status is CUBLAS_STATUS_SUCCESS.
  void check(cublasStatus_t status, const char* call, const std::string& detail = {}) const;

 private:
  const CublasFns* fn_;
  int ordinal_;
  std::string who_;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace bk
