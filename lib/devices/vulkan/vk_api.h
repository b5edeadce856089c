// SPDX-License-Identifier: MIT
#pragma once
// The Vulkan headers as this plugin uses them: no prototypes (nothing links against
// libvulkan; vk_loader.h fetches every entry point at run time), and the function tables.
//
// Adding a Vulkan call is adding its name to one of the lists below; the tables are filled by
// VulkanLoader (global and instance level) and VulkanContext (device level).

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan_core.h>

// Entry points that need no instance.
#define BK_VK_GLOBAL_FUNCS(X)   \
  X(vkCreateInstance)           \
  X(vkEnumerateInstanceVersion) \
  X(vkEnumerateInstanceExtensionProperties)

// Instance-level entry points (all core in Vulkan 1.1, which bk requires of the loader).
#define BK_VK_INSTANCE_FUNCS(X)               \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceFormatProperties)      \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkGetPhysicalDeviceMemoryProperties2)     \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkCreateDevice)                           \
  X(vkGetDeviceProcAddr)

// Device-level entry points. Timeline semaphore calls are core 1.2; on 1.1 devices with
// VK_KHR_timeline_semaphore they are loaded under their KHR names (see vk_context.cpp).
#define BK_VK_DEVICE_FUNCS(X)      \
  X(vkDestroyDevice)               \
  X(vkGetDeviceQueue)              \
  X(vkDeviceWaitIdle)              \
  X(vkQueueSubmit)                 \
  X(vkCreateCommandPool)           \
  X(vkDestroyCommandPool)          \
  X(vkAllocateCommandBuffers)      \
  X(vkFreeCommandBuffers)          \
  X(vkBeginCommandBuffer)          \
  X(vkEndCommandBuffer)            \
  X(vkResetCommandBuffer)          \
  X(vkCreateBuffer)                \
  X(vkDestroyBuffer)               \
  X(vkCreateBufferView)            \
  X(vkDestroyBufferView)           \
  X(vkGetBufferMemoryRequirements) \
  X(vkAllocateMemory)              \
  X(vkFreeMemory)                  \
  X(vkBindBufferMemory)            \
  X(vkMapMemory)                   \
  X(vkUnmapMemory)                 \
  X(vkCmdCopyBuffer)               \
  X(vkCmdFillBuffer)               \
  X(vkCmdPipelineBarrier)          \
  X(vkCreateSemaphore)             \
  X(vkDestroySemaphore)            \
  X(vkWaitSemaphores)              \
  X(vkGetSemaphoreCounterValue)    \
  X(vkCreateShaderModule)          \
  X(vkDestroyShaderModule)         \
  X(vkCreateComputePipelines)      \
  X(vkDestroyPipeline)             \
  X(vkCreatePipelineLayout)        \
  X(vkDestroyPipelineLayout)       \
  X(vkCreateDescriptorSetLayout)   \
  X(vkDestroyDescriptorSetLayout)  \
  X(vkCreateDescriptorPool)        \
  X(vkDestroyDescriptorPool)       \
  X(vkAllocateDescriptorSets)      \
  X(vkResetDescriptorPool)         \
  X(vkUpdateDescriptorSets)        \
  X(vkCmdBindPipeline)             \
  X(vkCmdBindDescriptorSets)       \
  X(vkCmdPushConstants)            \
  X(vkCmdDispatch)                 \
  X(vkCreateQueryPool)             \
  X(vkDestroyQueryPool)            \
  X(vkCmdResetQueryPool)           \
  X(vkCmdWriteTimestamp)           \
  X(vkGetQueryPoolResults)

namespace bk {

#define BK_VK_DECLARE(name) PFN_##name name = nullptr;

struct VulkanGlobalFns {
  BK_VK_GLOBAL_FUNCS(BK_VK_DECLARE)
};

struct VulkanInstanceFns {
  BK_VK_INSTANCE_FUNCS(BK_VK_DECLARE)
};

struct VulkanDeviceFns {
  BK_VK_DEVICE_FUNCS(BK_VK_DECLARE)
};

#undef BK_VK_DECLARE

}  // namespace bk
