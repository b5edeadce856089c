// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_loader.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include "bk/error.h"

namespace bk {
namespace {

constexpr const char* kLoaderName = "libvulkan.so.1";

}  // namespace

std::unique_ptr<VulkanLoader> VulkanLoader::open(std::string& why) {
  void* handle = dlopen(kLoaderName, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    why = fmt::format("Vulkan loader not found ({}); install libvulkan1 and a Vulkan driver",
                      err != nullptr ? err : kLoaderName);
    return nullptr;
  }
  std::unique_ptr<VulkanLoader> loader(new VulkanLoader());
  // dlsym returns void*; POSIX guarantees it converts to a function pointer.
  loader->get_instance_proc_ =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(handle, "vkGetInstanceProcAddr"));
  if (loader->get_instance_proc_ == nullptr) {
    why = fmt::format("{} has no vkGetInstanceProcAddr; the Vulkan loader is broken", kLoaderName);
    return nullptr;
  }
  VulkanGlobalFns& g = loader->global_;
#define BK_VK_LOAD(name) \
  g.name = reinterpret_cast<PFN_##name>(loader->get_instance_proc_(VK_NULL_HANDLE, #name));
  BK_VK_GLOBAL_FUNCS(BK_VK_LOAD)
#undef BK_VK_LOAD
  if (g.vkCreateInstance == nullptr || g.vkEnumerateInstanceExtensionProperties == nullptr) {
    why = fmt::format("{} lacks vkCreateInstance; the Vulkan loader is broken", kLoaderName);
    return nullptr;
  }
  // vkEnumerateInstanceVersion exists from loader 1.1 on; bk needs 1.1's properties2 queries.
  uint32_t version = VK_API_VERSION_1_0;
  if (g.vkEnumerateInstanceVersion == nullptr || g.vkEnumerateInstanceVersion(&version) != VK_SUCCESS ||
      version < VK_API_VERSION_1_1) {
    why = fmt::format("the Vulkan loader supports only Vulkan {}.{}; bk needs 1.1 or newer",
                      VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version));
    return nullptr;
  }
  loader->api_version_ = version;
  return loader;
}

VulkanInstanceFns VulkanLoader::load_instance(VkInstance instance) const {
  VulkanInstanceFns f;
#define BK_VK_LOAD(name)                                                                               \
  f.name = reinterpret_cast<PFN_##name>(get_instance_proc_(instance, #name));                          \
  if (f.name == nullptr) {                                                                             \
    throw Error(ErrorCode::device_error,                                                               \
                "the Vulkan loader has no " #name "; update the loader (libvulkan1) to 1.1 or newer"); \
  }
  BK_VK_INSTANCE_FUNCS(BK_VK_LOAD)
#undef BK_VK_LOAD
  return f;
}

}  // namespace bk
