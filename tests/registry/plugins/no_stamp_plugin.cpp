// SPDX-License-Identifier: MIT
// A plugin from before ABI stamps: an entry point but no bk_plugin_abi_stamp. The registry must
// refuse it without calling into it.
#include <cstdlib>

#include "bk/plugin_api.h"

BK_PLUGIN_EXPORT int bk_plugin_init_v1(uint32_t /*host_api_version*/, bk_plugin_result* /*result*/) {
  std::abort();  // never reached: the missing stamp is found first
}
