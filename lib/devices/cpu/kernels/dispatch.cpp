// SPDX-License-Identifier: MIT
#include "devices/cpu/kernels/dispatch.h"

#include <fmt/format.h>

#include <array>
#include <cstdlib>

#include "bk/error.h"
#include "bk/strings.h"
#include "devices/cpu/cpu_features.h"

namespace bk {
namespace {

constexpr std::array<const char*, kCpuIsaCount> kNames{"portable", "avx2", "avx512", "amx"};

std::vector<std::string_view> required_features(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::portable:
      return {};
    case CpuIsa::avx2:
      return {"avx2", "fma", "f16c"};
    case CpuIsa::avx512:
      return {"avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl"};
    case CpuIsa::amx:
      return {"avx2",     "fma",         "f16c",     "avx512f", "avx512bw",
              "avx512vl", "avx512_bf16", "amx_tile", "amx_bf16"};
  }
  return {};
}

// Whether this build holds a tier's units (x86 tiers are compiled on x86-64 only).
bool tier_built(CpuIsa isa) {
#if defined(BK_CPU_X86_TIERS)
  (void)isa;
  return true;
#else
  return isa == CpuIsa::portable;
#endif
}

std::array<CpuKernels, kCpuIsaCount> build_tables() {
  // Filling a table only stores function addresses; no tier instruction runs here.
  std::array<CpuKernels, kCpuIsaCount> tables{};
  cpu_fill_vec_portable(tables[0]);
  cpu_fill_matmul_portable(tables[0]);
  cpu_fill_quant_dot_portable(tables[0]);
  tables[0].isa = CpuIsa::portable;
#if defined(BK_CPU_X86_TIERS)
  cpu_fill_vec_avx2(tables[1]);
  cpu_fill_matmul_avx2(tables[1]);
  cpu_fill_quant_dot_avx2(tables[1]);
  cpu_fill_quant_tile_avx2(tables[1]);
  cpu_fill_dequantize_avx2(tables[1]);
  tables[1].isa = CpuIsa::avx2;
  cpu_fill_vec_avx2(tables[2]);  // AVX-512 CPUs run the avx2 vector loops; the matmul tile is wider
  cpu_fill_matmul_avx512(tables[2]);
  // The quantized dot products and tiles: the avx2 kernels, and where VNNI runs, 512-bit ones
  // (fused: for q4_0 and q4_k, q8_0's and q6_k's measured no faster; docs/performance.md,
  // "AVX-512 fused kernels").
  cpu_fill_quant_dot_avx2(tables[2]);
  cpu_fill_quant_tile_avx2(tables[2]);
  if (cpu_features().avx512_vnni) {
    cpu_fill_quant_dot_avx512(tables[2]);
    cpu_fill_quant_tile_avx512(tables[2]);
  }
  cpu_fill_dequantize_avx2(tables[2]);
  cpu_fill_peak_avx512_ext(tables[2], cpu_features().avx512_bf16, cpu_features().avx512_fp16);
  tables[2].isa = CpuIsa::avx512;
  tables[3] = tables[2];
  cpu_fill_matmul_amx(tables[3]);
  tables[3].isa = CpuIsa::amx;
#endif
  return tables;
}

}  // namespace

const char* cpu_isa_name(CpuIsa isa) noexcept { return kNames[static_cast<size_t>(isa)]; }

std::optional<CpuIsa> cpu_isa_from_name(std::string_view name) noexcept {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (iequals(kNames[i], name)) return static_cast<CpuIsa>(i);
  }
  return std::nullopt;
}

std::vector<std::string> cpu_isa_missing_features(CpuIsa isa) {
  const CpuFeatures& features = cpu_features();
  std::vector<std::string> missing;
  for (std::string_view f : required_features(isa)) {
    if (!features.has(f)) missing.emplace_back(f);
  }
  // Tiles also need the OS's per-process permission (asked once, here, before any tile use).
  if (isa == CpuIsa::amx && missing.empty() && !cpu_request_amx())
    missing.emplace_back("OS permission for AMX tile data (arch_prctl ARCH_REQ_XCOMP_PERM denied)");
  return missing;
}

bool cpu_isa_available(CpuIsa isa) { return tier_built(isa) && cpu_isa_missing_features(isa).empty(); }

CpuIsa cpu_best_isa() {
  for (CpuIsa isa : {CpuIsa::amx, CpuIsa::avx512, CpuIsa::avx2}) {
    if (cpu_isa_available(isa)) return isa;
  }
  return CpuIsa::portable;
}

void cpu_require_isa(CpuIsa isa) {
  const std::vector<std::string> missing = cpu_isa_missing_features(isa);
  if (missing.empty() && !tier_built(isa)) {
    throw Error(
        ErrorCode::unsupported,
        fmt::format("CPU kernels: this build of bk has no {} tier (its units are not compiled for {}); use "
                    "BK_CPU_ISA={} or unset BK_CPU_ISA",
                    cpu_isa_name(isa), cpu_features().arch, cpu_isa_name(cpu_best_isa())));
  }
  if (missing.empty()) return;
  throw Error(ErrorCode::unsupported,
              fmt::format("CPU kernels: the {} tier needs {} but this CPU ({}) lacks {}; choose another tier "
                          "(BK_CPU_ISA={} runs here) or unset BK_CPU_ISA",
                          cpu_isa_name(isa), fmt::join(required_features(isa), ", "), cpu_features().arch,
                          fmt::join(missing, ", "), cpu_isa_name(cpu_best_isa())));
}

CpuIsa cpu_default_isa() {
  const char* forced = std::getenv("BK_CPU_ISA");
  if (forced == nullptr || *forced == '\0') return cpu_best_isa();
  const std::optional<CpuIsa> isa = cpu_isa_from_name(forced);
  if (!isa) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format(
            "BK_CPU_ISA='{}' is not a CPU kernel tier; use portable, avx2, avx512 or amx, or unset it",
            forced));
  }
  cpu_require_isa(*isa);
  return *isa;
}

const CpuKernels& cpu_kernels(CpuIsa isa) {
  cpu_require_isa(isa);
  static const std::array<CpuKernels, kCpuIsaCount> tables = build_tables();
  return tables[static_cast<size_t>(isa)];
}

}  // namespace bk
