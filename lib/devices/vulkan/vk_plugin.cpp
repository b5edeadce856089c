// SPDX-License-Identifier: MIT
// libbk-vulkan.so's entry point: the registry calls it once and gets the Vulkan reg.
#include "bk/plugin_api.h"
#include "devices/vulkan/vk_reg.h"

BK_PLUGIN_ENTRY(bk::vulkan_reg)
