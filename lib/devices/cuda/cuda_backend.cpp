// SPDX-License-Identifier: MIT
#include "devices/cuda/cuda_backend.h"

#include <fmt/format.h>

#include "bk/error.h"
#include "bk/graph.h"
#include "bk/tensor.h"
#include "devices/cuda/cuda_blas.h"
#include "devices/cuda/cuda_buffer.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_device_scope.h"
#include "devices/cuda/cuda_error.h"
#include "devices/cuda/cuda_event.h"
#include "devices/cuda/cuda_ops.h"

namespace bk {
namespace {

// The device address of [offset, offset + size) inside the tensor, checked like Buffer's own
// accessors check it.
char* checked_address(const Tensor& tensor, size_t offset, size_t size, const char* what) {
  const size_t nbytes = tensor.nbytes();
  const size_t at = tensor.buffer->offset_of(tensor);
  if (offset > nbytes || size > nbytes - offset || at + offset + size > tensor.buffer->size()) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("{}: bytes [{}, {}) are outside tensor '{}' of {} bytes ({} {}) in '{}' of {} bytes",
                    what, offset, offset + size, tensor.label(), nbytes, dtype_name(tensor.type),
                    tensor.shape_string(), tensor.buffer->type().name(), tensor.buffer->size()));
  }
  return static_cast<char*>(tensor.data) + offset;
}

}  // namespace

CudaBackend::Stream::Stream(CudaDevice& device) {
  CudaDeviceScope scope(device.ordinal(), device.name());
  cuda_check(cudaStreamCreateWithFlags(&handle, cudaStreamDefault), "cudaStreamCreateWithFlags",
             device.name());
}

CudaBackend::Stream::~Stream() { cudaStreamDestroy(handle); }

CudaBackend::CudaBackend(CudaDevice& device)
    : device_(device),
      stream_(device),
      tf32_(device.options().tf32),
      scratch_(stream_.handle, device.info().memory_pools, device.name()) {}

CudaBackend::~CudaBackend() {
  // Destructors cannot report failures; a lost context has already been reported by the call
  // that lost it.
  int previous = -1;
  cudaGetDevice(&previous);
  cudaSetDevice(device_.ordinal());
  cudaStreamSynchronize(stream_.handle);
  blas_.reset();
  scratch_.release();
  if (previous >= 0) cudaSetDevice(previous);
}

std::string CudaBackend::name() const { return device_.name(); }

Device& CudaBackend::device() const { return device_; }

CublasHandle& CudaBackend::blas() {
  if (!blas_) blas_ = std::make_unique<CublasHandle>(device_.ordinal(), stream_.handle, device_.name());
  return *blas_;
}

void CudaBackend::set_tensor_async(Tensor& tensor, const void* src, size_t offset, size_t size) {
  if (!device_.holds(tensor)) {
    synchronize();
    Backend::set_tensor_async(tensor, src, offset, size);
    return;
  }
  char* dst = checked_address(tensor, offset, size, "set_tensor_async");
  if (size == 0) return;
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  cuda_check(cudaMemcpyAsync(dst, src, size, cudaMemcpyHostToDevice, stream_.handle), "cudaMemcpyAsync",
             device_.name(), fmt::format("(host to device, {} bytes into '{}')", size, tensor.label()));
}

void CudaBackend::get_tensor_async(const Tensor& tensor, void* dst, size_t offset, size_t size) {
  if (!device_.holds(tensor)) {
    synchronize();
    Backend::get_tensor_async(tensor, dst, offset, size);
    return;
  }
  const char* src = checked_address(tensor, offset, size, "get_tensor_async");
  if (size == 0) return;
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  cuda_check(cudaMemcpyAsync(dst, src, size, cudaMemcpyDeviceToHost, stream_.handle), "cudaMemcpyAsync",
             device_.name(), fmt::format("(device to host, {} bytes from '{}')", size, tensor.label()));
}

bool CudaBackend::copy_tensor_async(Backend& src_backend, const Tensor& src, Tensor& dst) {
  if (!device_.holds(dst) || src.buffer == nullptr) return false;
  const CudaBuffer* from = cuda_buffer_of(src.buffer);
  if (from == nullptr && !src.buffer->type().is_host()) return false;
  const size_t n = src.nbytes();
  if (n != dst.nbytes()) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("copy_tensor_async on {}: '{}' has {} bytes but '{}' has {}", name(), src.label(),
                            n, dst.label(), dst.nbytes()));
  }
  const char* s = checked_address(src, 0, n, "copy_tensor_async");
  char* d = checked_address(dst, 0, n, "copy_tensor_async");
  order_after(src_backend);
  if (n == 0) return true;
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  if (from == nullptr) {
    cuda_check(cudaMemcpyAsync(d, s, n, cudaMemcpyHostToDevice, stream_.handle), "cudaMemcpyAsync",
               device_.name(),
               fmt::format("(host buffer '{}' to device, {} bytes)", src.buffer->type().name(), n));
  } else if (&from->cuda_device() == &device_) {
    cuda_check(cudaMemcpyAsync(d, s, n, cudaMemcpyDeviceToDevice, stream_.handle), "cudaMemcpyAsync",
               device_.name(), fmt::format("(device to device, {} bytes)", n));
  } else {
    cuda_check(cudaMemcpyPeerAsync(d, device_.ordinal(), s, from->cuda_device().ordinal(), n, stream_.handle),
               "cudaMemcpyPeerAsync", device_.name(),
               fmt::format("(from {}, {} bytes)", from->cuda_device().name(), n));
  }
  return true;
}

void CudaBackend::order_after(Backend& other) {
  if (&other == this) return;
  if (dynamic_cast<CudaBackend*>(&other) == nullptr) {
    other.synchronize();
    return;
  }
  auto& cuda = static_cast<CudaBackend&>(other);
  CudaEvent event(cuda.device_, false);
  event.record(cuda);
  wait(event);
}

void CudaBackend::synchronize() {
  cuda_check(cudaStreamSynchronize(stream_.handle), "cudaStreamSynchronize", device_.name());
}

void CudaBackend::compute(Graph& graph) {
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  for (const Tensor* node : graph.nodes()) {
    if (node->op == Op::none || op_is_view(node->op)) continue;
    cuda_compute_node(*this, *node);
  }
}

void CudaBackend::wait(Event& event) {
  auto* cuda = dynamic_cast<CudaEvent*>(&event);
  if (cuda == nullptr) {
    event.synchronize();
    return;
  }
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  cuda_check(cudaStreamWaitEvent(stream_.handle, cuda->get(), 0), "cudaStreamWaitEvent", device_.name());
}

void cuda_set_tf32(Backend& backend, bool enabled) {
  auto* cuda = dynamic_cast<CudaBackend*>(&backend);
  if (cuda == nullptr) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("cuda_set_tf32: backend '{}' is not a CUDA backend", backend.name()));
  }
  cuda->set_tf32(enabled);
}

}  // namespace bk
