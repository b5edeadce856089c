// SPDX-License-Identifier: MIT
// A plugin built for an older plugin API (same headers, so its ABI stamp matches): the registry
// must refuse it and say why.
#include "bk/plugin_api.h"

BK_PLUGIN_EXPORT const char bk_plugin_abi_stamp[] = BK_ABI_STAMP;

BK_PLUGIN_EXPORT int bk_plugin_init_v1(uint32_t /*host_api_version*/, bk_plugin_result* result) {
  result->api_version = 0;
  result->reg = nullptr;
  return 0;
}
