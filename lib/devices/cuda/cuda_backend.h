// SPDX-License-Identifier: MIT
#pragma once
// CudaBackend: a stream on one GPU.
//
// The stream is a blocking one (not cudaStreamNonBlocking), so the synchronous Buffer accessors,
// which run on the legacy default stream, stay ordered with it (see cuda_buffer.h). Transfers
// between host and this GPU's memory, copies between GPUs and every compute() node are queued
// on it and return at once; synchronize() waits and reports any asynchronous failure.
//
// MUL_MAT uses cuBLAS through a handle leased from the GPU's pool on first use; TF32 for F32
// weights follows the device's options (BK_CUDA_TF32) until set_tf32() changes it for this
// backend.
//
// Threading: one thread at a time, like every Backend.

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "bk/device.h"
#include "devices/cuda/cuda_scratch.h"

namespace bk {

class CublasHandle;
class CudaDevice;

class CudaBackend final : public Backend {
 public:
  // Throws Error(device_error) naming the device when the stream cannot be created.
  explicit CudaBackend(CudaDevice& device);
  ~CudaBackend() override;

  std::string name() const override;
  Device& device() const override;

  // Tensors in this GPU's memory: cudaMemcpyAsync on the stream. Elsewhere: the synchronous
  // buffer accessors, after the stream has drained.
  void set_tensor_async(Tensor& tensor, const void* src, size_t offset, size_t size) override;
  void get_tensor_async(const Tensor& tensor, void* dst, size_t offset, size_t size) override;
  // Into this GPU's memory, from this or another GPU (peer to peer) or from a host buffer,
  // ordered after src_backend's queued work (on the device when it is a CUDA backend, else by
  // synchronising it). Anything else: false.
  bool copy_tensor_async(Backend& src_backend, const Tensor& src, Tensor& dst) override;
  void synchronize() override;
  // Throws Error(unsupported) for a node supports_op refuses, Error(invalid_argument) for a
  // tensor outside this GPU's memory, Error(device_error) when a launch fails.
  void compute(Graph& graph) override;
  // CUDA events (of any GPU) are waited for on the device; others on the host.
  void wait(Event& event) override;
  // Independent FMA chains on every SM (cuda_peak.cpp): F32, F16 and BF16 (paired), the CUDA
  // cores' rate, not the tensor cores'.
  double run_peak_kernel(DType type, double flops) override;

  cudaStream_t stream() const noexcept { return stream_.handle; }
  CudaDevice& cuda_device() const noexcept { return device_; }
  bool tf32() const noexcept { return tf32_; }
  void set_tf32(bool enabled) noexcept { tf32_ = enabled; }
  // The cuBLAS handle, leased on first call. Throws Error(unsupported) when cuBLAS is missing.
  CublasHandle& blas();
  CudaScratch& scratch() noexcept { return scratch_; }

 private:
  // Makes this stream wait for what `other` has queued so far.
  void order_after(Backend& other);

  // Owns the stream; declared before everything that queues work on it.
  struct Stream {
    explicit Stream(CudaDevice& device);
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t handle = nullptr;
  };

  CudaDevice& device_;
  Stream stream_;
  bool tf32_;
  CudaScratch scratch_;
  std::unique_ptr<CublasHandle> blas_;
};

// set_tf32 for a Backend reached only through the interfaces: the CUDA reg's
// proc_address("cuda_set_tf32") returns it. Throws Error(invalid_argument) for other backends.
void cuda_set_tf32(Backend& backend, bool enabled);

}  // namespace bk
