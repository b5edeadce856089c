// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_address.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "bk/error.h"

namespace bk {

VulkanAddressRange::VulkanAddressRange(size_t size) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  length_ = size == 0 ? page : (size + page - 1) / page * page;
  void* p = mmap(nullptr, length_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    throw Error(ErrorCode::out_of_memory,
                fmt::format("cannot reserve {} bytes of address space for a Vulkan buffer: {}", length_,
                            std::strerror(errno)));
  }
  base_ = p;
}

VulkanAddressRange::~VulkanAddressRange() { munmap(base_, length_); }

}  // namespace bk
