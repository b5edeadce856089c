// SPDX-License-Identifier: MIT
// MUL_MAT through cuBLAS (cuda_ops.h).
//
// ggml's convention maps straight onto column-major GEMM: w [K, M] with K innermost is a K x M
// column-major matrix A, x [K, N] is K x N B, and r [M, N] is the M x N C = A^T B, so every call
// is gemm(T, N). F32 weights run in F32 (TF32 when the backend asks); F16 and BF16 weights run on
// tensor cores with F32 accumulation after the activations are converted to the weights' dtype
// (ggml does the same), because cuBLAS has no mixed 16-bit x 32-bit GEMM. Operands whose rows
// are not contiguous are first packed into scratch memory. Batches are one GEMM when the weights
// are shared and the activations fold into one matrix, else one batched GEMM over pointer arrays
// built on the device (which also covers grouped-query broadcasting).

#include <cublas_api.h>
#include <fmt/format.h>

#include <climits>

#include "bk/error.h"
#include "devices/cuda/cuda_backend.h"
#include "devices/cuda/cuda_blas.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_error.h"
#include "devices/cuda/cuda_ops.h"

namespace bk {
namespace {

using cuda::KTensor;
using cuda::KType;

cudaDataType blas_type(DType t) {
  switch (t) {
    case DType::F16:
      return CUDA_R_16F;
    case DType::BF16:
      return CUDA_R_16BF;
    default:
      return CUDA_R_32F;
  }
}

size_t type_size(KType t) { return t == KType::f16 || t == KType::bf16 ? 2 : 4; }

// Rows contiguous, with a leading dimension cuBLAS accepts.
bool gemm_ready(const KTensor& t, KType want) {
  const int64_t es = static_cast<int64_t>(type_size(want));
  return t.type == want && t.nb[0] == es && t.nb[1] % es == 0 && t.nb[1] / es >= t.ne[0] &&
         t.nb[1] / es <= INT_MAX;
}

KTensor packed_like(const KTensor& t, KType type, char* data) {
  KTensor p = t;
  p.data = data;
  p.type = type;
  p.nb[0] = static_cast<int64_t>(type_size(type));
  for (int i = 1; i < 4; ++i) p.nb[i] = p.nb[i - 1] * p.ne[i - 1];
  return p;
}

size_t packed_bytes(const KTensor& t, KType type) {
  return static_cast<size_t>(t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3]) * type_size(type);
}

class MulMat {
 public:
  MulMat(CudaBackend& backend, const Tensor& node)
      : backend_(backend),
        node_(node),
        who_(backend.cuda_device().name()),
        wtype_(node.src[0]->type),
        w_(cuda_ktensor(*node.src[0])),
        x_(cuda_ktensor(*node.src[1])),
        r_(cuda_ktensor(node)) {}

  void run() {
    if (r_.ne[0] * r_.ne[1] * r_.ne[2] * r_.ne[3] == 0) return;
    if (w_.ne[0] == 0) {  // an empty sum
      check(cudaMemsetAsync(r_.data, 0, node_.nbytes(), backend_.stream()), "cudaMemsetAsync");
      return;
    }
    prepare_operands();
    if (foldable()) {
      gemm_one();
    } else {
      gemm_batched();
    }
  }

 private:
  void check(cudaError_t err, const char* call) const {
    cuda_check(err, call, who_, fmt::format("for mul_mat '{}' {}", node_.name, node_.shape_string()));
  }

  // Packs w when its rows are not contiguous, and x when they are not or when it must become
  // the weights' 16-bit dtype, into one scratch block (with room for the pointer arrays).
  void prepare_operands() {
    const KType wk = w_.type;
    const bool copy_w = !gemm_ready(w_, wk);
    const bool copy_x = !gemm_ready(x_, wk);
    CudaScratchLayout layout;
    const size_t w_at = copy_w ? layout.add(packed_bytes(w_, wk)) : 0;
    const size_t x_at = copy_x ? layout.add(packed_bytes(x_, wk)) : 0;
    const size_t batches = static_cast<size_t>(r_.ne[2] * r_.ne[3]);
    pointers_at_ = layout.add(3 * batches * sizeof(void*));
    scratch_ = static_cast<char*>(backend_.scratch().take(layout.size()));
    if (copy_w) w_ = convert(w_, wk, scratch_ + w_at);
    if (copy_x) x_ = convert(x_, wk, scratch_ + x_at);
  }

  KTensor convert(const KTensor& from, KType to, char* at) const {
    const KTensor packed = packed_like(from, to, at);
    check(cuda::launch_unary(cuda::KUnary::copy, packed, from, 0.0f, backend_.stream()),
          "kernel launch (pack)");
    return packed;
  }

  // Shared weights and activations whose batches continue one another: one GEMM with N * C2 * C3 columns.
  bool foldable() const {
    const int64_t columns = x_.ne[1] * x_.ne[2] * x_.ne[3];
    return w_.ne[2] * w_.ne[3] == 1 && x_.nb[2] == x_.ne[1] * x_.nb[1] && x_.nb[3] == x_.ne[2] * x_.nb[2] &&
           columns <= INT_MAX;
  }

  int lda() const { return static_cast<int>(w_.nb[1] / static_cast<int64_t>(type_size(w_.type))); }
  int ldb() const { return static_cast<int>(x_.nb[1] / static_cast<int64_t>(type_size(x_.type))); }

  cublasComputeType_t compute_type() const {
    return wtype_ == DType::F32 && backend_.tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  }

  void gemm_one() {
    CublasHandle& blas = backend_.blas();
    const float one = 1.0f, zero = 0.0f;
    const int m = static_cast<int>(w_.ne[1]), k = static_cast<int>(w_.ne[0]);
    const int n = static_cast<int>(x_.ne[1] * x_.ne[2] * x_.ne[3]);
    blas.check(blas.fn().gemm_ex(blas.get(), CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, w_.data,
                                 blas_type(wtype_), lda(), x_.data, blas_type(wtype_), ldb(), &zero, r_.data,
                                 CUDA_R_32F, m, compute_type(), CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx", fmt::format("for mul_mat '{}' (M={}, N={}, K={})", node_.name, m, n, k));
  }

  void gemm_batched() {
    const int64_t c2 = r_.ne[2], c3 = r_.ne[3];
    const cuda::KBatchPointers p{w_.data,       x_.data,       r_.data,  c2,       c3,
                                 c2 / w_.ne[2], c3 / w_.ne[3], w_.nb[2], w_.nb[3], x_.nb[2],
                                 x_.nb[3],      r_.nb[2],      r_.nb[3]};
    void** ptrs = reinterpret_cast<void**>(scratch_ + pointers_at_);
    check(cuda::launch_batch_pointers(p, ptrs, backend_.stream()), "kernel launch (batch pointers)");
    const int batches = static_cast<int>(c2 * c3);
    CublasHandle& blas = backend_.blas();
    const float one = 1.0f, zero = 0.0f;
    const int m = static_cast<int>(w_.ne[1]), n = static_cast<int>(x_.ne[1]), k = static_cast<int>(w_.ne[0]);
    blas.check(blas.fn().gemm_batched_ex(blas.get(), CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, ptrs,
                                         blas_type(wtype_), lda(), ptrs + batches, blas_type(wtype_), ldb(),
                                         &zero, ptrs + 2 * batches, CUDA_R_32F, m, batches, compute_type(),
                                         CUBLAS_GEMM_DEFAULT),
               "cublasGemmBatchedEx",
               fmt::format("for mul_mat '{}' (M={}, N={}, K={}, {} batches)", node_.name, m, n, k, batches));
  }

  CudaBackend& backend_;
  const Tensor& node_;
  std::string who_;
  DType wtype_;
  KTensor w_, x_, r_;
  char* scratch_ = nullptr;
  size_t pointers_at_ = 0;
};

}  // namespace

void cuda_mul_mat(CudaBackend& backend, const Tensor& node) { MulMat(backend, node).run(); }

}  // namespace bk
