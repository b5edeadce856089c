// SPDX-License-Identifier: MIT
// A plugin whose initialisation throws: the entry point must turn that into an error message.
#include <stdexcept>

#include "bk/plugin_api.h"

namespace {
bk::BackendReg& make_reg() { throw std::runtime_error("driver exploded during init"); }
}  // namespace

BK_PLUGIN_ENTRY(make_reg)
