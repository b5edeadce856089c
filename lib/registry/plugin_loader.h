// SPDX-License-Identifier: MIT
#pragma once
// Loads one plugin file and calls its entry point. Internal to the registry.

#include <string>
#include <vector>

#include "bk/device.h"
#include "bk/registry.h"

namespace bk {

// Tries `path` as plugin `name`. On success attempt.status is loaded and *reg is set; the
// library stays loaded for the life of the process. Never throws.
PluginAttempt load_plugin_file(const std::string& name, const std::string& path, BackendReg** reg) noexcept;

// The default plugin search path: $BK_BACKEND_PATH entries, the executable's directory, the
// directory libbk was loaded from, and the install's lib dir (duplicates removed).
std::vector<std::string> default_plugin_search_path();

}  // namespace bk
