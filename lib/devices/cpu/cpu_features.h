// SPDX-License-Identifier: MIT
#pragma once
// The instruction-set extensions this CPU has and the operating system lets us use.
//
// A feature is reported only when the CPU has it (cpuid on x86, the auxiliary vector on ARM
// Linux) and the OS saves its register state on context switches (XCR0 via XGETBV), so a
// kernel may use any reported feature. The one exception is AMX tile data on Linux: the kernel
// also wants a per-process request before the first tile instruction, so amx_* means "present
// and enabled by the OS" and cpu_request_amx() must succeed before AMX kernels run.
//
// Dependent features imply their base: avx2, fma and f16c imply avx; every avx512_* implies
// avx512f; amx_bf16 and amx_int8 imply amx_tile.
//
// Threading: cpu_features() detects once, thread-safely, and then only reads.

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bk {

struct CpuFeatures {
  // x86
  bool sse4_2 = false;
  bool avx = false;
  bool avx2 = false;
  bool fma = false;
  bool f16c = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512_vnni = false;
  bool avx512_bf16 = false;
  bool avx512_fp16 = false;
  bool amx_tile = false;
  bool amx_bf16 = false;
  bool amx_int8 = false;
  // ARM
  bool neon = false;
  bool sve = false;

  std::string arch;                // "x86_64", "aarch64", or the compiler's name for another
  std::vector<std::string> names;  // the features present, in the order of cpu_feature_names()

  // Whether the named feature is present; false for a name that is not in cpu_feature_names().
  bool has(std::string_view name) const noexcept;
};

// Every feature name this build knows, in report order. They are spelled as Linux spells them
// in /proc/cpuinfo (sse4_2, avx512_vnni, amx_tile; neon is "asimd" there).
std::span<const std::string_view> cpu_feature_names() noexcept;

// Detects the running CPU's features once; later calls return the same object.
const CpuFeatures& cpu_features();
// Detects again, without caching.
CpuFeatures detect_cpu_features();

// Asks Linux for permission to use AMX tile data in this process (arch_prctl
// ARCH_REQ_XCOMP_PERM). Returns true when AMX is usable: permission granted now or earlier.
// Returns false without asking when amx_tile is absent; elsewhere than Linux, returns amx_tile.
// Process-wide and asked once; call it before starting threads that run AMX code.
bool cpu_request_amx();

}  // namespace bk
