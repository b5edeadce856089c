// SPDX-License-Identifier: MIT
#pragma once
// Run-time ISA dispatch for the CPU kernels: which instruction-set tier runs, and how to force
// one.
//
// Tiers, best first: amx (avx512 plus AMX-BF16 tiles and AVX512_BF16, for bf16-weight mul_mat;
// also needs Linux's per-process tile permission, requested on first use), avx512 (AVX-512
// F+BW+VL, with FMA and F16C), avx2 (AVX2 + FMA + F16C),
// portable (plain C++ for the build's baseline). Each tier's code lives in its own translation
// units, compiled with that tier's -m flags (see CMakeLists.txt); generic code never contains
// tier instructions, and a tier's table is only handed out when cpu_features() reports every
// feature it needs, so a binary built here runs on any x86-64 (or other) CPU without SIGILL.
//
// The tier a CpuBackend uses by default is cpu_default_isa(): the env var BK_CPU_ISA
// (portable|avx2|avx512|amx, case-insensitive) when set and non-empty, else the best available.
// Errors: Error(invalid_argument) for an unknown BK_CPU_ISA value or isa name, and
// Error(unsupported) when the forced tier needs a feature this CPU lacks (the message names it).
// Threading: everything here is safe to call from any thread.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "devices/cpu/kernels/kernel_table.h"

namespace bk {

const char* cpu_isa_name(CpuIsa isa) noexcept;  // "portable", "avx2", "avx512", "amx"
std::optional<CpuIsa> cpu_isa_from_name(std::string_view name) noexcept;

// The features `isa` needs that this CPU lacks (cpu_features() names); empty when it can run.
std::vector<std::string> cpu_isa_missing_features(CpuIsa isa);
bool cpu_isa_available(CpuIsa isa);
// The best tier this CPU can run.
CpuIsa cpu_best_isa();
// BK_CPU_ISA when set (checked as described above), else cpu_best_isa().
CpuIsa cpu_default_isa();
// Throws Error(unsupported) naming the missing features unless `isa` can run here.
void cpu_require_isa(CpuIsa isa);

// The kernel table of a tier. Throws like cpu_require_isa(): a table is never handed out for a
// tier this CPU cannot run. The table is static; the reference stays valid.
const CpuKernels& cpu_kernels(CpuIsa isa);

}  // namespace bk
