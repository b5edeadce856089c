// SPDX-License-Identifier: MIT
#pragma once
// VulkanBackend: a stream on a Vulkan device's compute queue.
//
// Transfers are asynchronous when the stream has work in flight: data to upload is copied into
// staging memory at once (so the caller's source may be reused immediately), downloads land in
// staging and reach the caller's memory in synchronize(). When the stream is idle they run
// synchronously, which is both correct and faster. Copies between buffers of this device are
// recorded on the stream. Commands are submitted by synchronize(), by Event::record and by
// compute().
//
// compute() records one or more dispatches per node (vk_ops.h), each followed by a barrier,
// and submits them without waiting; synchronize() waits. A node the device does not support
// is Error(unsupported) with the device's reason, before anything of the graph is recorded.
// Descriptor sets of recorded dispatches are recycled at synchronize().
//
// Threading: one thread at a time, like every Backend.

#include <memory>
#include <string>
#include <vector>

#include "bk/device.h"
#include "devices/vulkan/vk_descriptors.h"
#include "devices/vulkan/vk_staging.h"
#include "devices/vulkan/vk_stream.h"

namespace bk {

class VulkanContext;
class VulkanDevice;

class VulkanBackend : public Backend {
 public:
  // Creates the device's context on first use; throws Error(device_error) when that fails.
  explicit VulkanBackend(VulkanDevice& device);
  ~VulkanBackend() override;

  std::string name() const override;
  Device& device() const override;

  void set_tensor_async(Tensor& tensor, const void* src, size_t offset, size_t size) override;
  void get_tensor_async(const Tensor& tensor, void* dst, size_t offset, size_t size) override;
  // Same-device Vulkan buffers: a copy on this stream, ordered after src_backend's work. A
  // source in host memory: an upload. Anything else: false.
  bool copy_tensor_async(Backend& src_backend, const Tensor& src, Tensor& dst) override;
  void synchronize() override;
  void compute(Graph& graph) override;
  // Events of this device are waited for on the device; others on the host.
  void wait(Event& event) override;
  // peak_fma.comp: F32, and F16 where the device has shaderFloat16 (vk_peak.h).
  double run_peak_kernel(DType type, double flops) override;

  VulkanStream& stream() noexcept { return stream_; }
  VulkanContext& context() const noexcept { return ctx_; }
  VulkanDescriptorArena& descriptors() noexcept { return descriptors_; }
  // Submits what was recorded, without waiting.
  void flush() { stream_.submit(); }

 private:
  void order_after(Backend& other);

  struct PendingRead {
    const uint8_t* staging;
    void* dst;
    size_t size;
  };

  VulkanDevice& device_;
  VulkanContext& ctx_;
  VulkanStagingArena arena_;           // declared before the stream: the stream waits before it goes
  VulkanDescriptorArena descriptors_;  // before the stream too: its sets are in flight until it waits
  VulkanStream stream_;
  std::vector<PendingRead> reads_;
};

}  // namespace bk
