#pragma once
// The one C entry point a device plugin (libbk-<name>.so) exports.
//
//   extern "C" int bk_plugin_init_v1(uint32_t host_api_version, bk_plugin_result* result);
//
// The registry dlopens the plugin, looks the symbol up and calls it once. The plugin fills
// `result` and returns 0, or returns non-zero with `error` filled. The entry point must not
// throw (BK_PLUGIN_ENTRY wraps the body in a catch-all). Beyond it, the returned BackendReg and
// everything it hands out are C++ objects built against this same libbk (the API version is
// bumped whenever these interfaces change), and may throw bk::Error, whose type lives in libbk.
// The reg must stay valid until the process exits; the registry never dlcloses a plugin.

#include <cstddef>
#include <cstdint>

namespace bk {
class BackendReg;
}

inline constexpr uint32_t kBkPluginApiVersion = 1;
inline constexpr const char* kBkPluginEntrySymbol = "bk_plugin_init_v1";

extern "C" {
struct bk_plugin_result {
  uint32_t api_version;  // the plugin's kBkPluginApiVersion
  bk::BackendReg* reg;   // owned by the plugin
  char error[512];       // why init failed, when it returns non-zero
};
using bk_plugin_init_fn = int (*)(uint32_t host_api_version, bk_plugin_result* result);
}

#define BK_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

// Defines the entry point from a function `bk::BackendReg& make_reg()` that may throw.
#define BK_PLUGIN_ENTRY(make_reg)                                                             \
  BK_PLUGIN_EXPORT int bk_plugin_init_v1(uint32_t /*host_api_version*/, bk_plugin_result* r) { \
    r->api_version = kBkPluginApiVersion;                                                    \
    r->reg = nullptr;                                                                        \
    r->error[0] = '\0';                                                                      \
    try {                                                                                    \
      r->reg = &make_reg();                                                                  \
      return 0;                                                                              \
    } catch (const std::exception& e) {                                                      \
      bk_plugin_copy_error(r, e.what());                                                     \
    } catch (...) {                                                                          \
      bk_plugin_copy_error(r, "unknown exception during plugin init");                       \
    }                                                                                        \
    return 1;                                                                                \
  }

inline void bk_plugin_copy_error(bk_plugin_result* r, const char* message) noexcept {
  size_t i = 0;
  for (; message[i] != '\0' && i + 1 < sizeof r->error; ++i) r->error[i] = message[i];
  r->error[i] = '\0';
}
