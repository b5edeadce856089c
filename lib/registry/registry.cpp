// SPDX-License-Identifier: MIT
#include "bk/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "bk/error.h"
#include "bk/strings.h"
#include "bk_build_config.h"
#include "registry/plugin_loader.h"

namespace bk {

const char* plugin_status_name(PluginAttempt::Status status) noexcept {
  switch (status) {
    case PluginAttempt::Status::loaded:
      return "loaded";
    case PluginAttempt::Status::not_found:
      return "not_found";
    case PluginAttempt::Status::failed:
      return "failed";
  }
  return "failed";
}

Registry::Registry(const RegistryOptions& options) {
  for (BackendReg* reg : options.builtin_regs) add(*reg);
  if (options.load_plugins) load_default_plugins(options);
}

Registry::~Registry() = default;

void Registry::add(BackendReg& reg) {
  const std::vector<Device*> devices = reg.devices();
  for (Device* d : devices) {
    if (const Device* taken = find_device(d->name())) {
      const bool shadows = d->is_simulated() && !taken->is_simulated();
      throw Error(
          ErrorCode::invalid_argument,
          fmt::format("backend {}: device name '{}' is already taken by backend {}{}", reg.name(), d->name(),
                      taken->reg().name(),
                      shadows ? "; a simulated device may not shadow a real one: give it another name" : ""));
    }
  }
  regs_.push_back(&reg);
  devices_.insert(devices_.end(), devices.begin(), devices.end());
}

const PluginAttempt& Registry::load_plugin(const std::string& name, const std::string& path) {
  BackendReg* reg = nullptr;
  PluginAttempt attempt = load_plugin_file(name, path, &reg);
  return register_loaded(std::move(attempt), reg);
}

const PluginAttempt& Registry::register_loaded(PluginAttempt attempt, BackendReg* reg) {
  const std::string name = attempt.name, path = attempt.path;
  if (reg != nullptr) {
    if (find_reg(reg->name()) != nullptr) {
      attempt = {name, path, PluginAttempt::Status::failed,
                 fmt::format("a backend named '{}' is already registered; skipped this copy", reg->name())};
    } else {
      try {
        add(*reg);
      } catch (const std::exception& e) {
        attempt = {name, path, PluginAttempt::Status::failed, e.what()};
      } catch (...) {
        attempt = {name, path, PluginAttempt::Status::failed,
                   "listing its devices threw an exception that is not a std::exception"};
      }
    }
  }
  attempts_.push_back(std::move(attempt));
  return attempts_.back();
}

std::vector<std::string> built_plugin_names() {
  return {build::kPluginNames.begin(), build::kPluginNames.end()};
}

namespace {

// "vulkan" for ".../libbk-vulkan.so"; empty for any other file name.
std::string plugin_name_of(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  constexpr std::string_view kPrefix = "libbk-", kSuffix = ".so";
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix)) {
    return {};
  }
  return name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
}

// Every libbk-<name>.so in the directories, by name, sorted: plugins this build does not know.
std::vector<std::string> discover_plugin_names(const std::vector<std::string>& dirs) {
  std::vector<std::string> names;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      std::string name = plugin_name_of(entry.path());
      if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Whether a reg offers simulated devices (listing them may throw: then it is not deferred, and
// registering it reports the error).
bool simulates(BackendReg& reg) noexcept {
  try {
    const std::vector<Device*> devices = reg.devices();
    return std::any_of(devices.begin(), devices.end(), [](const Device* d) { return d->is_simulated(); });
  } catch (...) {
    return false;
  }
}

}  // namespace

void Registry::load_default_plugins(const RegistryOptions& options) {
  const std::vector<std::string> dirs =
      options.search_path.empty() ? default_plugin_search_path() : options.search_path;
  std::vector<std::string> names = options.plugin_names;
  if (names.empty()) {
    names = built_plugin_names();
    for (std::string& found : discover_plugin_names(dirs)) {
      if (std::find(names.begin(), names.end(), found) == names.end()) names.push_back(std::move(found));
    }
  }
  // Plugins of simulated devices register after every real one, so that a simulated device can
  // never take a real device's name (BK_SIM_DEVICES='Vulkan0'): it is the one refused.
  std::vector<std::pair<PluginAttempt, BackendReg*>> simulated;
  for (const std::string& name : names) {
    const std::string file = fmt::format("libbk-{}.so", name);
    auto found = std::find_if(dirs.begin(), dirs.end(), [&](const std::string& dir) {
      std::error_code ec;
      return std::filesystem::is_regular_file(std::filesystem::path(dir) / file, ec);
    });
    if (found == dirs.end()) {
      attempts_.push_back({name,
                           {},
                           PluginAttempt::Status::not_found,
                           fmt::format("{} not found in: {}", file, fmt::join(dirs, ", "))});
      continue;
    }
    BackendReg* reg = nullptr;
    PluginAttempt attempt = load_plugin_file(name, (std::filesystem::path(*found) / file).string(), &reg);
    if (reg != nullptr && simulates(*reg)) {
      simulated.emplace_back(std::move(attempt), reg);
    } else {
      register_loaded(std::move(attempt), reg);
    }
  }
  for (auto& [attempt, reg] : simulated) register_loaded(std::move(attempt), reg);
}

BackendReg* Registry::find_reg(std::string_view name) const noexcept {
  for (BackendReg* reg : regs_) {
    if (iequals(reg->name(), name)) return reg;
  }
  return nullptr;
}

Device* Registry::find_device(std::string_view name) const noexcept {
  for (Device* d : devices_) {
    if (iequals(d->name(), name)) return d;
  }
  return nullptr;
}

std::vector<Device*> Registry::devices_of_type(DeviceType type) const {
  std::vector<Device*> out;
  std::copy_if(devices_.begin(), devices_.end(), std::back_inserter(out),
               [type](const Device* d) { return d->type() == type; });
  return out;
}

std::string Registry::device_names() const {
  std::vector<std::string> names;
  for (const Device* d : devices_) names.push_back(d->name());
  return fmt::format("{}", fmt::join(names, ", "));
}

namespace {

// "; CUDA has no devices here: CUDA driver not found (...)" when `name` starts with the name of a
// registered kind that found no device, so the error says why, not only what exists.
std::string absent_kind_hint(const std::vector<BackendReg*>& regs, std::string_view name) {
  for (BackendReg* reg : regs) {
    const std::string kind = reg->name();
    if (name.size() < kind.size() || !iequals(name.substr(0, kind.size()), kind)) continue;
    if (!reg->devices().empty()) continue;
    const std::string status = reg->status();
    return fmt::format("; {} has no devices here{}", kind, status.empty() ? "" : ": " + status);
  }
  return {};
}

// The plugins that failed to load: a simulated device is missing when BK_SIM_DEVICES is
// malformed, a GPU when its plugin's driver library is, and the error should say so.
std::string failed_plugins(const std::vector<PluginAttempt>& attempts) {
  std::string failed;
  for (const PluginAttempt& a : attempts) {
    if (a.status == PluginAttempt::Status::failed)
      failed += fmt::format("; plugin {} failed: {}", a.name, a.reason);
  }
  return failed;
}

}  // namespace

Device& Registry::device(std::string_view name) const {
  if (Device* d = find_device(name)) return *d;
  throw Error(ErrorCode::not_found,
              fmt::format("no device named '{}'; devices here: {}{}{} (see 'bkctl devices')", name,
                          device_names(), absent_kind_hint(regs_, name), failed_plugins(attempts_)));
}

Device& Registry::device(size_t index) const {
  if (index < devices_.size()) return *devices_[index];
  throw Error(ErrorCode::not_found, fmt::format("no device with index {}; there are {} ({})", index,
                                                devices_.size(), device_names()));
}

std::unique_ptr<Backend> Registry::init_by_name(std::string_view name) const {
  return device(name).init_backend();
}

std::unique_ptr<Backend> Registry::init_by_type(DeviceType type) const {
  const auto matching = devices_of_type(type);
  if (matching.empty()) {
    throw Error(ErrorCode::not_found, fmt::format("no device of type {}; devices here: {}",
                                                  device_type_name(type), device_names()));
  }
  return matching.front()->init_backend();
}

std::unique_ptr<Backend> Registry::init_best() const {
  for (DeviceType type : {DeviceType::gpu, DeviceType::igpu, DeviceType::cpu}) {
    if (!devices_of_type(type).empty()) return init_by_type(type);
  }
  throw Error(ErrorCode::not_found, "no device found at all; the CPU backend should always be present");
}

}  // namespace bk
