// SPDX-License-Identifier: MIT
#pragma once
// VulkanStream: in-order work on the device's compute queue, recorded into command buffers and
// tracked by a timeline semaphore. This is the recording helper every transfer and (later)
// every kernel dispatch goes through:
//
//   VkCommandBuffer cb = stream.commands();   // begun, ready for vkCmd*
//   ...record...; stream.barrier();           // later commands see earlier writes
//   uint64_t done = stream.submit();          // one queue submission, signals `done`
//   stream.wait(done);                        // host waits (throws on timeout / device loss)
//
// Each submission signals the next value of the stream's timeline, so "everything up to here"
// is one number; events and other streams wait on (timeline, value) pairs. Command buffers are
// recycled once the timeline shows they completed.
//
// Threading: one thread at a time. Errors: bk::Error from vk_check.

#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "devices/vulkan/vk_api.h"

namespace bk {

class VulkanContext;

// A timeline semaphore, shared by the stream that signals it and the events that point into it.
class VulkanTimeline {
 public:
  explicit VulkanTimeline(VulkanContext& ctx);
  ~VulkanTimeline();
  VulkanTimeline(const VulkanTimeline&) = delete;
  VulkanTimeline& operator=(const VulkanTimeline&) = delete;

  VulkanContext& context() const noexcept { return ctx_; }
  VkSemaphore handle() const noexcept { return semaphore_; }
  uint64_t completed() const;
  // Blocks until the value is reached; throws Error(timeout) after kWaitTimeoutSeconds.
  void wait(uint64_t value) const;

  static constexpr uint64_t kWaitTimeoutSeconds = 300;

 private:
  VulkanContext& ctx_;
  VkSemaphore semaphore_ = VK_NULL_HANDLE;
};

class VulkanStream {
 public:
  explicit VulkanStream(VulkanContext& ctx);
  // Waits for submitted work (a lost device has nothing left to wait for), then frees.
  ~VulkanStream();
  VulkanStream(const VulkanStream&) = delete;
  VulkanStream& operator=(const VulkanStream&) = delete;

  VulkanContext& context() const noexcept { return ctx_; }
  // The command buffer being recorded, begun on first use after a submit.
  VkCommandBuffer commands();
  bool has_commands() const noexcept { return current_ != VK_NULL_HANDLE; }
  // Orders every command recorded so far before every later one, memory included.
  void barrier();
  // The next submission waits (on the device) until `timeline` reaches `value`.
  void wait_for(std::shared_ptr<VulkanTimeline> timeline, uint64_t value);

  // Submits what was recorded; returns the value that marks it done (the last one when there
  // was nothing to submit).
  uint64_t submit();
  void wait(uint64_t value);
  void finish() { wait(submit()); }
  // Nothing recorded and everything submitted has completed.
  bool idle() const;

  const std::shared_ptr<VulkanTimeline>& timeline() const noexcept { return timeline_; }
  uint64_t last_submitted() const noexcept { return submitted_; }

 private:
  void reclaim();

  struct InFlight {
    uint64_t value;
    VkCommandBuffer commands;
  };

  VulkanContext& ctx_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  std::shared_ptr<VulkanTimeline> timeline_;
  VkCommandBuffer current_ = VK_NULL_HANDLE;
  std::deque<InFlight> in_flight_;
  std::vector<VkCommandBuffer> free_;
  std::vector<std::pair<std::shared_ptr<VulkanTimeline>, uint64_t>> waits_;
  uint64_t submitted_ = 0;
};

}  // namespace bk
