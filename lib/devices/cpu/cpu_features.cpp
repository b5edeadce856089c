// SPDX-License-Identifier: MIT
#include "devices/cpu/cpu_features.h"

#include <array>
#include <cstdint>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define BK_CPU_X86 1
#include <cpuid.h>
#endif
#if defined(BK_CPU_X86) && defined(__linux__)
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace bk {
namespace {

struct FeatureEntry {
  std::string_view name;
  bool CpuFeatures::*flag;
};

constexpr std::array kFeatures{
    FeatureEntry{"sse4_2", &CpuFeatures::sse4_2},
    FeatureEntry{"avx", &CpuFeatures::avx},
    FeatureEntry{"avx2", &CpuFeatures::avx2},
    FeatureEntry{"fma", &CpuFeatures::fma},
    FeatureEntry{"f16c", &CpuFeatures::f16c},
    FeatureEntry{"avx512f", &CpuFeatures::avx512f},
    FeatureEntry{"avx512bw", &CpuFeatures::avx512bw},
    FeatureEntry{"avx512vl", &CpuFeatures::avx512vl},
    FeatureEntry{"avx512_vnni", &CpuFeatures::avx512_vnni},
    FeatureEntry{"avx512_bf16", &CpuFeatures::avx512_bf16},
    FeatureEntry{"avx512_fp16", &CpuFeatures::avx512_fp16},
    FeatureEntry{"amx_tile", &CpuFeatures::amx_tile},
    FeatureEntry{"amx_bf16", &CpuFeatures::amx_bf16},
    FeatureEntry{"amx_int8", &CpuFeatures::amx_int8},
    FeatureEntry{"neon", &CpuFeatures::neon},
    FeatureEntry{"sve", &CpuFeatures::sve},
};

constexpr auto kFeatureNames = [] {
  std::array<std::string_view, kFeatures.size()> names{};
  for (size_t i = 0; i < kFeatures.size(); ++i) names[i] = kFeatures[i].name;
  return names;
}();

const char* arch_name() noexcept {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__i386__)
  return "x86";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__arm__)
  return "arm";
#else
  return "unknown";
#endif
}

#if defined(BK_CPU_X86)
constexpr bool bit(uint32_t reg, int n) noexcept { return ((reg >> n) & 1u) != 0; }

struct CpuidRegs {
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

// All zero when the leaf is beyond what this CPU reports.
CpuidRegs cpuid(uint32_t leaf, uint32_t subleaf) noexcept {
  CpuidRegs r;
  if (__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx) == 0) return {};
  return r;
}

// XCR0: which register state the OS saves. Raw instruction so no -mxsave target is needed.
uint64_t xcr0() noexcept {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t{hi} << 32) | lo;
}

constexpr uint64_t kXcr0Avx = 0x6;      // SSE and AVX (YMM upper halves)
constexpr uint64_t kXcr0Avx512 = 0xe0;  // opmask, ZMM upper halves, ZMM16-31
constexpr uint64_t kXcr0Amx = 0x60000;  // XTILECFG and XTILEDATA

void detect_x86(CpuFeatures& f) noexcept {
  const CpuidRegs l1 = cpuid(1, 0);
  const CpuidRegs l7 = cpuid(7, 0);
  const CpuidRegs l7s1 = l7.eax >= 1 ? cpuid(7, 1) : CpuidRegs{};
  const uint64_t xcr = bit(l1.ecx, 27) ? xcr0() : 0;  // OSXSAVE: XGETBV is allowed
  const bool os_avx = (xcr & kXcr0Avx) == kXcr0Avx;
  const bool os_avx512 = os_avx && (xcr & kXcr0Avx512) == kXcr0Avx512;
  const bool os_amx = (xcr & kXcr0Amx) == kXcr0Amx;

  f.sse4_2 = bit(l1.ecx, 20);
  f.avx = os_avx && bit(l1.ecx, 28);
  f.avx2 = f.avx && bit(l7.ebx, 5);
  f.fma = f.avx && bit(l1.ecx, 12);
  f.f16c = f.avx && bit(l1.ecx, 29);
  f.avx512f = os_avx512 && bit(l7.ebx, 16);
  f.avx512bw = f.avx512f && bit(l7.ebx, 30);
  f.avx512vl = f.avx512f && bit(l7.ebx, 31);
  f.avx512_vnni = f.avx512f && bit(l7.ecx, 11);
  f.avx512_bf16 = f.avx512f && bit(l7s1.eax, 5);
  f.avx512_fp16 = f.avx512f && bit(l7.edx, 23);
  f.amx_tile = os_amx && bit(l7.edx, 24);
  f.amx_bf16 = f.amx_tile && bit(l7.edx, 22);
  f.amx_int8 = f.amx_tile && bit(l7.edx, 25);
}
#endif

void detect_arm(CpuFeatures& f) noexcept {
#if defined(__aarch64__) && defined(__linux__)
  const unsigned long hwcap = getauxval(AT_HWCAP);
  f.neon = (hwcap & HWCAP_ASIMD) != 0;
#if defined(HWCAP_SVE)
  f.sve = (hwcap & HWCAP_SVE) != 0;
#endif
#elif defined(__aarch64__)
  f.neon = true;  // Advanced SIMD is mandatory in AArch64
#else
  (void)f;
#endif
}

#if defined(BK_CPU_X86) && defined(__linux__)
constexpr unsigned long kXfeatureXtileData = 18;

bool linux_amx_permitted() noexcept {
  unsigned long permitted = 0;
  if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &permitted) == 0 &&
      (permitted & (1ul << kXfeatureXtileData))) {
    return true;
  }
  return syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, kXfeatureXtileData) == 0;
}
#endif

}  // namespace

bool CpuFeatures::has(std::string_view name) const noexcept {
  for (const FeatureEntry& e : kFeatures) {
    if (e.name == name) return this->*e.flag;
  }
  return false;
}

std::span<const std::string_view> cpu_feature_names() noexcept { return kFeatureNames; }

CpuFeatures detect_cpu_features() {
  CpuFeatures f;
  f.arch = arch_name();
#if defined(BK_CPU_X86)
  detect_x86(f);
#endif
  detect_arm(f);
  for (const FeatureEntry& e : kFeatures) {
    if (f.*e.flag) f.names.emplace_back(e.name);
  }
  return f;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect_cpu_features();
  return features;
}

bool cpu_request_amx() {
  if (!cpu_features().amx_tile) return false;
#if defined(BK_CPU_X86) && defined(__linux__)
  static const bool permitted = linux_amx_permitted();
  return permitted;
#else
  return true;    // no request exists elsewhere: XCR0, checked by amx_tile, is the OS's consent
#endif
}

}  // namespace bk
