// SPDX-License-Identifier: MIT
#pragma once
// What a device plugin (libbk-<name>.so) exports, both defined by BK_PLUGIN_ENTRY:
//
//   extern "C" const char bk_plugin_abi_stamp[];  // BK_ABI_STAMP of the headers it was built with
//   extern "C" int bk_plugin_init_v1(uint32_t host_api_version, bk_plugin_result* result);
//
// The registry dlopens the plugin and first compares its ABI stamp with its own: beyond the entry
// point, the reg and everything it hands out are C++ objects laid out by the bk headers
// (Device, Buffer, ...), so a plugin compiled against other headers is refused, with both stamps
// in the reason, before any of its code runs. Then it calls the init function once; the plugin
// fills `result` and returns 0, or returns non-zero with `error` filled. The init function must
// not throw (BK_PLUGIN_ENTRY wraps the body in a catch-all). The returned reg may throw
// bk::Error, whose type lives in libbk. It must stay valid until the process exits; the registry
// never dlcloses a plugin. The API version covers only this C entry point (the struct and the
// signature below); the stamp covers the C++ interfaces.

#include <cstddef>
#include <cstdint>

#include "bk/abi_stamp.h"

namespace bk {
class BackendReg;
}

inline constexpr uint32_t kBkPluginApiVersion = 1;
inline constexpr const char* kBkPluginEntrySymbol = "bk_plugin_init_v1";
inline constexpr const char* kBkPluginAbiSymbol = "bk_plugin_abi_stamp";

extern "C" {
struct bk_plugin_result {
  uint32_t api_version;  // the plugin's kBkPluginApiVersion
  bk::BackendReg* reg;   // owned by the plugin
  char error[512];       // why init failed, when it returns non-zero
};
using bk_plugin_init_fn = int (*)(uint32_t host_api_version, bk_plugin_result* result);
}

#define BK_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

// Defines the entry points from a function `bk::BackendReg& make_reg()` that may throw. Anything
// it throws, std::exception or not, becomes init's error.
#define BK_PLUGIN_ENTRY(make_reg)                                                              \
  BK_PLUGIN_EXPORT const char bk_plugin_abi_stamp[] = BK_ABI_STAMP;                            \
  BK_PLUGIN_EXPORT int bk_plugin_init_v1(uint32_t /*host_api_version*/, bk_plugin_result* r) { \
    r->api_version = kBkPluginApiVersion;                                                      \
    r->reg = nullptr;                                                                          \
    r->error[0] = '\0';                                                                        \
    try {                                                                                      \
      r->reg = &make_reg();                                                                    \
      return 0;                                                                                \
    } catch (const std::exception& e) {                                                        \
      bk_plugin_copy_error(r, e.what());                                                       \
    } catch (...) {                                                                            \
      bk_plugin_copy_error(r, "unknown exception during plugin init");                         \
    }                                                                                          \
    return 1;                                                                                  \
  }

inline void bk_plugin_copy_error(bk_plugin_result* r, const char* message) noexcept {
  size_t i = 0;
  for (; message[i] != '\0' && i + 1 < sizeof r->error; ++i) r->error[i] = message[i];
  r->error[i] = '\0';
}
