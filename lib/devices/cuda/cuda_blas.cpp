// SPDX-License-Identifier: MIT
#include "devices/cuda/cuda_blas.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <map>
#include <mutex>
#include <vector>

#include "bk/error.h"
#include "devices/cuda/cuda_error.h"

namespace bk {
namespace {

struct Loaded {
  CublasFns fn;
  bool ok = false;
  std::string status;  // the path it came from, or why it did not load
};

template <typename F>
bool resolve(void* lib, const char* symbol, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, symbol));
  return out != nullptr;
}

void* open_cublas(std::string& tried) {
  const std::string fallback = fmt::format("{}/{}", BK_CUDA_TOOLKIT_LIBDIR, BK_CUBLAS_SONAME);
  for (const std::string& name : {std::string(BK_CUBLAS_SONAME), fallback}) {
    dlerror();
    if (void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
    const char* why = dlerror();
    tried += fmt::format("{}{}", tried.empty() ? "" : "; ", why != nullptr ? why : name.c_str());
  }
  return nullptr;
}

Loaded load() {
  Loaded l;
  std::string tried;
  void* lib = open_cublas(tried);
  if (lib == nullptr) {
    l.status = fmt::format(
        "cuBLAS ({}) could not be loaded: {}; install the CUDA Toolkit's cuBLAS or add its "
        "directory to LD_LIBRARY_PATH",
        BK_CUBLAS_SONAME, tried);
    return l;
  }
  // Never closed: cuBLAS keeps process-wide state, and the plugin lives until the process exits.
  CublasFns& f = l.fn;
  l.ok = resolve(lib, "cublasCreate_v2", f.create) && resolve(lib, "cublasDestroy_v2", f.destroy) &&
         resolve(lib, "cublasSetStream_v2", f.set_stream) &&
         resolve(lib, "cublasSetMathMode", f.set_math_mode) &&
         resolve(lib, "cublasGetStatusName", f.status_name) &&
         resolve(lib, "cublasGetVersion_v2", f.get_version) && resolve(lib, "cublasGemmEx", f.gemm_ex) &&
         resolve(lib, "cublasGemmBatchedEx", f.gemm_batched_ex);
  Dl_info info{};
  const char* where = dladdr(reinterpret_cast<void*>(f.create), &info) != 0 && info.dli_fname != nullptr
                          ? info.dli_fname
                          : BK_CUBLAS_SONAME;
  l.status = l.ok ? std::string(where)
                  : fmt::format(
                        "{} lacks an expected entry point (GemmEx, GemmBatchedEx, ...); it is not the "
                        "cuBLAS this plugin was built for",
                        where);
  return l;
}

const Loaded& loaded() {
  static std::once_flag once;
  static Loaded instance;
  std::call_once(once, [] { instance = load(); });
  return instance;
}

// Idle handles per GPU ordinal. Deliberately never freed (see cuda_blas.h); reachable from this
// static pointer until exit, so leak checkers do not count it.
struct Pools {
  std::mutex mutex;
  std::map<int, std::vector<cublasHandle_t>> idle;
};

Pools& pools() {
  static Pools* instance = new Pools;
  return *instance;
}

cublasHandle_t take_pooled(int ordinal) {
  Pools& p = pools();
  std::lock_guard lock(p.mutex);
  std::vector<cublasHandle_t>& idle = p.idle[ordinal];
  if (idle.empty()) return nullptr;
  cublasHandle_t h = idle.back();
  idle.pop_back();
  return h;
}

void return_pooled(int ordinal, cublasHandle_t handle) noexcept {
  try {
    Pools& p = pools();
    std::lock_guard lock(p.mutex);
    p.idle[ordinal].push_back(handle);
  } catch (...) {
    // Out of memory while growing the pool: the handle is simply not reused.
  }
}

}  // namespace

const CublasFns* cublas_library(std::string* why) {
  const Loaded& l = loaded();
  if (!l.ok && why != nullptr) *why = l.status;
  return l.ok ? &l.fn : nullptr;
}

std::string cublas_library_status() { return loaded().status; }

CublasHandle::CublasHandle(int ordinal, cudaStream_t stream, const std::string& who)
    : ordinal_(ordinal), who_(who) {
  std::string why;
  fn_ = cublas_library(&why);
  if (fn_ == nullptr) throw Error(ErrorCode::unsupported, fmt::format("{}: {}", who, why));
  handle_ = take_pooled(ordinal_);
  if (handle_ == nullptr) check(fn_->create(&handle_), "cublasCreate");
  try {
    check(fn_->set_stream(handle_, stream), "cublasSetStream");
  } catch (...) {
    return_pooled(ordinal_, handle_);
    throw;
  }
}

CublasHandle::~CublasHandle() {
  fn_->set_stream(handle_, nullptr);  // the stream is about to go
  return_pooled(ordinal_, handle_);
}

void CublasHandle::check(cublasStatus_t status, const char* call, const std::string& detail) const {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  cublas_fail(static_cast<int>(status), fn_->status_name(status), call, who_, detail);
}

}  // namespace bk
