// SPDX-License-Identifier: MIT
// libbk-sim.so: the simulated devices of BK_SIM_DEVICES, as a plugin. Without the variable the
// reg has zero devices (not present, not an error); a malformed value fails the plugin with the
// parser's message, which the registry reports.
#include <cstdlib>

#include "bk/plugin_api.h"
#include "devices/sim/sim_device.h"

namespace {

bk::BackendReg& make_reg() {
  static std::unique_ptr<bk::BackendReg> reg = [] {
    const char* text = std::getenv("BK_SIM_DEVICES");
    return bk::make_sim_reg(text != nullptr ? text : "", "BK_SIM_DEVICES is not set");
  }();
  return *reg;
}

}  // namespace

BK_PLUGIN_ENTRY(make_reg)
