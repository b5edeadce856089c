// SPDX-License-Identifier: MIT
// libbk-null.so: the plugin entry point. It only builds the reg; BK_PLUGIN_ENTRY turns an
// exception into a failed load the registry reports (a malformed BK_NULL_DEVICES, here).
#include <cstdlib>

#include "bk/plugin_api.h"
#include "devices/null/null_reg.h"

namespace {

bk::BackendReg& make_reg() {
  // Read once: the registry asks once per process, and devices must not come and go.
  static std::unique_ptr<bk::BackendReg> reg = [] {
    const char* text = std::getenv("BK_NULL_DEVICES");
    if (text == nullptr || *text == '\0') return bk::make_null_reg(0, "BK_NULL_DEVICES is not set");
    return bk::make_null_reg(bk::parse_null_device_count(text), "BK_NULL_DEVICES is 0");
  }();
  return *reg;
}

}  // namespace

BK_PLUGIN_ENTRY(make_reg)
