// SPDX-License-Identifier: MIT
#pragma once
// The CPU's compute stream, "CPU". Synchronous: compute() returns when the graph is done, so
// synchronize() has nothing to wait for.
//
// Used by one thread at a time (like every Backend). Its kernels run on a persistent pool of
// threads() threads (the calling thread included), default cpu_default_threads() (the physical
// cores); the pool starts on the first compute() and is rebuilt when set_threads changes the
// count. The kernels are those of one ISA tier (kernels/dispatch.h), default cpu_default_isa().
// The work buffer grows to the largest plan seen and is kept between graphs.

#include <cstddef>
#include <functional>
#include <memory>

#include "bk/device.h"
#include "devices/cpu/kernels/kernel_table.h"

namespace bk {

class ThreadPool;

class CpuBackend final : public Backend {
 public:
  // Throws what cpu_default_isa() throws: Error(invalid_argument) for an unknown BK_CPU_ISA,
  // Error(unsupported) when it names a tier this CPU cannot run.
  explicit CpuBackend(Device& device);
  ~CpuBackend() override;

  std::string name() const override { return "CPU"; }
  Device& device() const override { return *device_; }

  // Evaluates the nodes in graph order (views need no work: allocation already pointed them at
  // their source). Throws Error(unsupported) naming the first node the CPU cannot compute
  // before running any, Error(invalid_argument) for bad data (a get_rows index out of range),
  // Error(out_of_memory) when the work buffer cannot be had, and Error(timeout) when the abort
  // callback stopped it (nodes from the one running then on are incomplete).
  void compute(Graph& graph) override;

  // Independent FMA chains in registers on every thread of the pool, with the tier's widest
  // arithmetic for `type`: F32 always (zmm / ymm FMA, or a plain loop on portable); BF16 with
  // AMX tdpbf16ps (tier amx) or AVX512_BF16 vdpbf16ps (tier avx512 on such a CPU); F16 with
  // AVX512_FP16 (tier avx512 or amx on such a CPU). Returns the exact FLOPs performed (at
  // least `flops`, rounded up to whole loop rounds). Throws Error(unsupported) naming the
  // missing feature (or the forcing tier) for other cases, Error(invalid_argument) unless
  // flops is finite and > 0.
  double run_peak_kernel(DType type, double flops) override;

  int threads() const noexcept { return threads_; }
  // Throws Error(invalid_argument) unless threads >= 1.
  void set_threads(int threads);

  CpuIsa isa() const noexcept;
  // Throws Error(unsupported) naming the missing features when this CPU cannot run `isa`.
  void set_isa(CpuIsa isa);

  // Called on the computing thread before each node and each task it claims; once it returns
  // true, compute() stops and throws Error(timeout). An empty function removes it.
  void set_abort_callback(std::function<bool()> callback) { abort_ = std::move(callback); }

 private:
  struct AlignedFree {
    void operator()(std::byte* p) const noexcept;
  };
  std::byte* work_buffer(size_t size);
  void abort_error(const Tensor& node, size_t index, size_t count) const;

  Device* device_;
  int threads_;
  const CpuKernels* kernels_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<std::byte, AlignedFree> work_;
  size_t work_size_ = 0;
  std::function<bool()> abort_;
};

// set_threads for a Backend reached only through the interfaces (the CPU reg's
// proc_address("set_threads") returns it). Throws Error(invalid_argument) when backend is not a
// CPU backend or threads < 1.
void cpu_set_threads(Backend& backend, int threads);

// The abort callback for a Backend reached only through the interfaces
// (proc_address("set_abort_callback")): callback(user) is asked as CpuBackend's is; null removes
// it. Throws Error(invalid_argument) when backend is not a CPU backend.
void cpu_set_abort_callback(Backend& backend, bool (*callback)(void* user), void* user);

}  // namespace bk
