// SPDX-License-Identifier: MIT
// A plugin that needs a symbol nobody defines: dlopen(RTLD_NOW) fails with the linker's message.
#include "bk/plugin_api.h"

extern "C" int bk_symbol_that_does_not_exist(int);

BK_PLUGIN_EXPORT int bk_plugin_init_v1(uint32_t host_api_version, bk_plugin_result* result) {
  result->api_version =
      static_cast<uint32_t>(bk_symbol_that_does_not_exist(static_cast<int>(host_api_version)));
  return 1;
}
