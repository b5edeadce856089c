// SPDX-License-Identifier: MIT
#include "registry/plugin_loader.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "bk/plugin_api.h"
#include "bk/strings.h"
#include "bk_build_config.h"

namespace bk {
namespace {

std::string dir_of(const std::string& file) { return std::filesystem::path(file).parent_path().string(); }

std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string{} : exe.parent_path().string();
}

std::string libbk_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&default_plugin_search_path), &info) == 0 || info.dli_fname == nullptr) {
    return {};
  }
  std::error_code ec;
  const auto canonical = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? dir_of(info.dli_fname) : canonical.parent_path().string();
}

PluginAttempt failed(const std::string& name, const std::string& path, std::string reason) {
  return {name, path, PluginAttempt::Status::failed, std::move(reason)};
}

// Why the plugin's ABI stamp is not ours (plugin_api.h); empty when it is.
std::string abi_mismatch(void* handle) {
  const auto* stamp = static_cast<const char*>(dlsym(handle, kBkPluginAbiSymbol));
  if (stamp == nullptr) {
    return fmt::format(
        "no ABI stamp ({}): built against bk headers older than this bk ({}); rebuild the plugin",
        kBkPluginAbiSymbol, BK_ABI_STAMP);
  }
  if (std::string_view(stamp, ::strnlen(stamp, 64)) == BK_ABI_STAMP) return {};
  return fmt::format(
      "built against other bk headers (ABI stamp {}, this bk is {}); rebuild the plugin against "
      "this bk's headers",
      std::string_view(stamp, ::strnlen(stamp, 64)), BK_ABI_STAMP);
}

}  // namespace

std::vector<std::string> default_plugin_search_path() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("BK_BACKEND_PATH"); env != nullptr) {
    for (auto& d : split(env, ':')) {
      if (!d.empty()) dirs.push_back(d);
    }
  }
  dirs.push_back(executable_dir());
  dirs.push_back(libbk_dir());
  if (const std::string lib = libbk_dir(); !lib.empty()) dirs.push_back(lib + "/bk");
  dirs.emplace_back(build::kInstallPluginDir);
  std::vector<std::string> unique;
  for (auto& d : dirs) {
    if (!d.empty() && std::find(unique.begin(), unique.end(), d) == unique.end()) unique.push_back(d);
  }
  return unique;
}

PluginAttempt load_plugin_file(const std::string& name, const std::string& path, BackendReg** reg) noexcept {
  *reg = nullptr;
  try {
    dlerror();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      return failed(name, path, fmt::format("dlopen failed: {}", why != nullptr ? why : "unknown error"));
    }
    // The handle is deliberately never closed: devices and their vtables live in the library
    // until the process exits.
    void* symbol = dlsym(handle, kBkPluginEntrySymbol);
    if (symbol == nullptr) {
      return failed(name, path,
                    fmt::format("missing symbol {}: not a bk plugin, or built for another API version",
                                kBkPluginEntrySymbol));
    }
    if (std::string why = abi_mismatch(handle); !why.empty()) return failed(name, path, std::move(why));
    bk_plugin_result result{};
    const auto init = reinterpret_cast<bk_plugin_init_fn>(symbol);
    const int rc = init(kBkPluginApiVersion, &result);
    if (result.api_version != kBkPluginApiVersion) {
      return failed(name, path,
                    fmt::format("wrong API version: plugin has {}, this bk needs {}; rebuild the plugin",
                                result.api_version, kBkPluginApiVersion));
    }
    if (rc != 0 || result.reg == nullptr) {
      result.error[sizeof result.error - 1] = '\0';
      return failed(name, path,
                    fmt::format("init failed: {}", result.error[0] ? result.error : "no reason given"));
    }
    *reg = result.reg;
    return {name, path, PluginAttempt::Status::loaded, {}};
  } catch (const std::exception& e) {
    return failed(name, path, e.what());
  } catch (...) {
    // A plugin built without BK_PLUGIN_ENTRY can throw anything; it must not end the process.
    return failed(name, path, "init threw an exception that is not a std::exception");
  }
}

}  // namespace bk
