// SPDX-License-Identifier: MIT
// The CUDA plugin's pure helpers: error conversion, status lines, identity formatting, options
// and which ops the kernels take. None needs a GPU.

#include <gtest/gtest.h>

#include <cstdlib>

#include "bk/error.h"
#include "bk/graph.h"
#include "bk/ops.h"
#include "devices/cuda/cuda_blas.h"
#include "devices/cuda/cuda_error.h"
#include "devices/cuda/cuda_ops.h"
#include "devices/cuda/cuda_options.h"
#include "devices/cuda/cuda_properties.h"

namespace bk {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(CudaError, NamesTheCodeAndItsNumber) {
  EXPECT_EQ(cuda_error_code(cudaErrorMemoryAllocation), "cudaErrorMemoryAllocation, 2");
  EXPECT_EQ(cuda_error_code(cudaErrorInsufficientDriver), "cudaErrorInsufficientDriver, 35");
}

TEST(CudaError, MessageNamesDeviceCallCodeAndDetail) {
  const std::string m =
      cuda_error_message(cudaErrorIllegalAddress, "cudaStreamSynchronize", "CUDA1", "after mul_mat");
  EXPECT_TRUE(contains(m, "CUDA1: cudaStreamSynchronize after mul_mat failed (cudaErrorIllegalAddress, 700)"))
      << m;
  EXPECT_TRUE(contains(m, "restart")) << m;
}

TEST(CudaError, MapsCodesOntoBkErrors) {
  auto code_of = [](cudaError_t err) {
    try {
      cuda_check(err, "call", "CUDA0");
    } catch (const Error& e) {
      return e.code();
    }
    ADD_FAILURE() << "no error thrown for " << static_cast<int>(err);
    return ErrorCode::check_failed;
  };
  EXPECT_EQ(code_of(cudaErrorMemoryAllocation), ErrorCode::out_of_memory);
  EXPECT_EQ(code_of(cudaErrorInsufficientDriver), ErrorCode::not_found);
  EXPECT_EQ(code_of(cudaErrorNoDevice), ErrorCode::not_found);
  EXPECT_EQ(code_of(cudaErrorLaunchTimeout), ErrorCode::timeout);
  EXPECT_EQ(code_of(cudaErrorIllegalAddress), ErrorCode::device_error);
  EXPECT_NO_THROW(cuda_check(cudaSuccess, "call", "CUDA0"));
}

TEST(CudaError, CublasFailuresNameTheStatus) {
  try {
    cublas_fail(3, "CUBLAS_STATUS_ALLOC_FAILED", "cublasCreate", "CUDA0");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::out_of_memory);
    EXPECT_TRUE(contains(e.what(), "CUDA0: cublasCreate failed (CUBLAS_STATUS_ALLOC_FAILED, 3)")) << e.what();
  }
  try {
    cublas_fail(7, nullptr, "cublasGemmEx", "CUDA0", "for mul_mat 'x'");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::device_error);
    EXPECT_TRUE(contains(e.what(), "cublasGemmEx for mul_mat 'x' failed")) << e.what();
  }
}

TEST(CudaStatus, SaysWhyThereAreNoDevices) {
  EXPECT_EQ(cuda_no_device_status(cudaErrorInsufficientDriver, 0, 13000),
            "CUDA driver not found (cudaGetDeviceCount: cudaErrorInsufficientDriver, 35)");
  const std::string old = cuda_no_device_status(cudaErrorInsufficientDriver, 12040, 13000);
  EXPECT_TRUE(contains(old, "12.4") && contains(old, "13.0") && contains(old, "update")) << old;
  EXPECT_TRUE(contains(cuda_no_device_status(cudaErrorNoDevice, 13000, 13000), "CUDA_VISIBLE_DEVICES"));
  EXPECT_TRUE(contains(cuda_no_device_status(cudaSuccess, 13000, 13000), "no CUDA device found"));
  EXPECT_TRUE(contains(cuda_no_device_status(cudaErrorInitializationError, 13000, 13000),
                       "cudaErrorInitializationError"));
}

TEST(CudaProperties, FormatsIdentities) {
  unsigned char bytes[16];
  for (int i = 0; i < 16; ++i) bytes[i] = static_cast<unsigned char>(i == 15 ? 0xef : i);
  EXPECT_EQ(cuda_uuid_string(bytes), "GPU-00010203-0405-0607-0809-0a0b0c0d0eef");
  EXPECT_EQ(cuda_normalise_pci_bus_id("0000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(cuda_normalise_pci_bus_id("00000000:65:00.0"), "0000:65:00.0");
  EXPECT_EQ(cuda_normalise_pci_bus_id("0001:65:00.0\n"), "0001:65:00.0");
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(12040), "12.4");
  EXPECT_EQ(cuda_version_string(0), "none");
}

TEST(CudaProperties, QueryFailsCleanlyWithoutADevice) {
  CudaDeviceInfo info;
  std::string why;
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) GTEST_SKIP() << "a GPU is present";
  EXPECT_FALSE(cuda_query_device(0, info, why));
  EXPECT_TRUE(contains(why, "cudaGetDeviceProperties")) << why;
}

class CudaOptionsTest : public testing::Test {
 protected:
  void TearDown() override { unsetenv("BK_CUDA_TF32"); }
};

TEST_F(CudaOptionsTest, Tf32IsOffUnlessAsked) {
  unsetenv("BK_CUDA_TF32");
  EXPECT_FALSE(cuda_options_from_env().tf32);
  setenv("BK_CUDA_TF32", "1", 1);
  EXPECT_TRUE(cuda_options_from_env().tf32);
  setenv("BK_CUDA_TF32", "0", 1);
  EXPECT_FALSE(cuda_options_from_env().tf32);
  setenv("BK_CUDA_TF32", "yes", 1);
  try {
    cuda_options_from_env();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_TRUE(contains(e.what(), "BK_CUDA_TF32='yes'")) << e.what();
  }
}

TEST(CudaOpSupport, TakesEveryOpOfTheOpSet) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F16, {64, 8, 4, 1}, "a");
  Tensor& b = g.input(DType::F32, {64, 1, 1, 1}, "b");
  Tensor& w = g.weight(DType::BF16, {64, 16, 2, 1}, "w");
  Tensor& x = g.input(DType::F32, {64, 5, 4, 1}, "x");
  Tensor& pos = g.input(DType::I32, {4, 1, 1, 1}, "pos");
  Tensor& idx = g.input(DType::I32, {3, 4, 1, 1}, "idx");
  Tensor& mask = g.input(DType::F32, {64, 8, 1, 1}, "mask");
  Tensor& dst = g.input(DType::BF16, {64, 32, 1, 1}, "dst");
  std::vector<Tensor*> nodes = {&ops::add(g, a, b),
                                &ops::mul(g, a, b),
                                &ops::scale(g, a, 0.5f),
                                &ops::silu(g, a),
                                &ops::gelu(g, a),
                                &ops::mul_mat(g, w, x),
                                &ops::mul_mat(g, ops::transpose(g, ops::cont(g, ops::transpose(g, w))), x),
                                &ops::rms_norm(g, a, 1e-5f),
                                &ops::soft_max(g, a, &mask, 0.125f),
                                &ops::soft_max(g, a, nullptr, 1.0f),
                                &ops::rope(g, a, pos, 32, RopeMode::neox, 10000.0f),
                                &ops::get_rows(g, a, idx),
                                &ops::cpy(g, a, dst),
                                &ops::cast(g, a, DType::F32),
                                &ops::cont(g, ops::permute(g, a, {2, 0, 1, 3})),
                                &ops::reshape(g, x, {64 * 5, 4, 1, 1})};
  for (const Tensor* n : nodes)
    EXPECT_EQ(cuda_unsupported_reason(*n), "") << op_name(n->op) << " " << n->name;
  EXPECT_EQ(cuda_unsupported_reason(a), "");  // a leaf
}

TEST(CudaOpSupport, RefusesSizesBeyondCublas) {
  GraphBuilder g;
  const int64_t k = int64_t{3} << 30;
  Tensor& w = g.weight(DType::F16, {k, 2, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {k, 2, 1, 1}, "x");
  const std::string why = cuda_unsupported_reason(ops::mul_mat(g, w, x));
  EXPECT_TRUE(contains(why, "int")) << why;
}

TEST(CudaBlas, LoadsAtRunTimeWithEveryEntryPoint) {
  std::string why;
  const CublasFns* fn = cublas_library(&why);
  if (fn == nullptr) {
    EXPECT_TRUE(contains(why, BK_CUBLAS_SONAME)) << why;
    GTEST_SKIP() << "no cuBLAS on this machine: " << why;
  }
  EXPECT_TRUE(contains(cublas_library_status(), BK_CUBLAS_SONAME)) << cublas_library_status();
  EXPECT_STREQ(fn->status_name(CUBLAS_STATUS_ALLOC_FAILED), "CUBLAS_STATUS_ALLOC_FAILED");
  EXPECT_NE(fn->gemm_ex, nullptr);
  EXPECT_NE(fn->gemm_batched_ex, nullptr);
}

TEST(CudaBlas, HandleCreationFailsCleanlyWithoutAGpu) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) GTEST_SKIP() << "a GPU is present";
  cudaGetLastError();
  if (cublas_library() == nullptr) GTEST_SKIP() << cublas_library_status();
  try {
    CublasHandle handle(0, nullptr, "CUDA0");
    FAIL() << "cublasCreate succeeded without a GPU";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::device_error);
    EXPECT_TRUE(contains(e.what(), "CUDA0: cublasCreate failed (CUBLAS_STATUS_")) << e.what();
  }
}

}  // namespace
}  // namespace bk
