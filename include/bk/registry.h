// SPDX-License-Identifier: MIT
#pragma once
// Registry: finds backends and devices.
//
// Built-in regs come first (the global registry has the CPU's); other device kinds are plugins
// (libbk-<name>.so): the ones this build produced, then any other found, searched in order in
// $BK_BACKEND_PATH (colon-separated), next to the executable, next to libbk, in bk/ beside libbk
// (where an install puts them: <libdir>/bk/), and in the configured install's plugin folder.
// Every attempt is recorded in plugin_report(): loaded, not found, or failed with the reason (a
// plugin built against other bk headers is refused: bk/plugin_api.h). A plugin that fails never
// hides the others, and a reg with zero devices is "not present", not an error (its status()
// says why).
//
// Threading: Registry::global() is built once, thread-safely, on first use; after that all
// const lookups may run from any thread. Lookups by name are case-insensitive.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bk/api.h"
#include "bk/device.h"

namespace bk {

struct BK_API PluginAttempt {
  enum class Status { loaded, not_found, failed };
  std::string name;  // "vulkan"
  std::string path;  // the file tried; empty when not found anywhere
  Status status = Status::not_found;
  std::string reason;  // for not_found: the directories searched; for failed: the cause
};
BK_API const char* plugin_status_name(PluginAttempt::Status status) noexcept;

// The plugins this build of bk produced, one per device-kind folder ("vulkan", "cuda", ...).
BK_API std::vector<std::string> built_plugin_names();

struct BK_API RegistryOptions {
  // Regs added first, in order, before any plugin; they must outlive the registry.
  std::vector<BackendReg*> builtin_regs;
  bool load_plugins = true;
  // Directories to search; empty means the default order described above.
  std::vector<std::string> search_path;
  // Plugin names to look for; empty means the ones this build produced, then every other
  // libbk-<name>.so in the search path (device kinds built outside this tree).
  std::vector<std::string> plugin_names;
};

class BK_API Registry {
 public:
  explicit Registry(const RegistryOptions& options = {});
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The process-wide registry: the built-in CPU reg, then every plugin found. Assembled by
  // libbk's runtime layer (lib/runtime), the one place that knows both the registry and the CPU.
  static Registry& global();

  // Adds a reg and its devices. The reg must outlive the registry. Throws
  // Error(invalid_argument) when a device name is already taken.
  void add(BackendReg& reg);
  // Tries one plugin file and records the attempt; returns it.
  const PluginAttempt& load_plugin(const std::string& name, const std::string& path);

  const std::vector<BackendReg*>& regs() const noexcept { return regs_; }
  const std::vector<Device*>& devices() const noexcept { return devices_; }
  const std::vector<PluginAttempt>& plugin_report() const noexcept { return attempts_; }

  BackendReg* find_reg(std::string_view name) const noexcept;
  Device* find_device(std::string_view name) const noexcept;
  std::vector<Device*> devices_of_type(DeviceType type) const;
  // Throws Error(not_found) listing the devices that exist and the plugins that failed to load.
  Device& device(std::string_view name) const;
  Device& device(size_t index) const;

  std::unique_ptr<Backend> init_by_name(std::string_view name) const;
  std::unique_ptr<Backend> init_by_type(DeviceType type) const;
  // The first discrete GPU, else integrated GPU, else the CPU.
  std::unique_ptr<Backend> init_best() const;

  // "CPU, Vulkan0, CUDA0": for error messages.
  std::string device_names() const;

 private:
  void load_default_plugins(const RegistryOptions& options);
  // Adds a loaded plugin's reg (when it has one) and records the attempt, failed when adding did.
  const PluginAttempt& register_loaded(PluginAttempt attempt, BackendReg* reg);

  std::vector<BackendReg*> regs_;
  std::vector<Device*> devices_;
  std::vector<PluginAttempt> attempts_;
};

}  // namespace bk
