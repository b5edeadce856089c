// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_backend.h"

#include <fmt/format.h>

#include <cstring>

#include "bk/error.h"
#include "bk/graph.h"
#include "bk/tensor.h"
#include "devices/vulkan/vk_buffer.h"
#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_device.h"
#include "devices/vulkan/vk_dispatch.h"
#include "devices/vulkan/vk_event.h"
#include "devices/vulkan/vk_ops.h"
#include "devices/vulkan/vk_peak.h"
#include "devices/vulkan/vk_transfer.h"

namespace bk {
namespace {

// The byte offset in `buffer` of [offset, offset + size) inside the tensor, checked like
// Buffer's own accessors check it.
size_t checked_offset(const VulkanBuffer& buffer, const Tensor& tensor, size_t offset, size_t size,
                      const char* what) {
  const size_t nbytes = tensor.nbytes();
  const size_t at = buffer.offset_of(tensor) + offset;
  if (offset > nbytes || size > nbytes - offset || at > buffer.size() || size > buffer.size() - at) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("{}: bytes [{}, {}) are outside tensor '{}' of {} bytes ({} {}) in '{}' of {} bytes",
                    what, offset, offset + size, tensor.label(), nbytes, dtype_name(tensor.type),
                    tensor.shape_string(), buffer.type().name(), buffer.size()));
  }
  return at;
}

}  // namespace

VulkanBackend::VulkanBackend(VulkanDevice& device)
    : device_(device), ctx_(device.context()), arena_(ctx_), descriptors_(ctx_), stream_(ctx_) {}

VulkanBackend::~VulkanBackend() = default;

std::string VulkanBackend::name() const { return device_.name(); }

Device& VulkanBackend::device() const { return device_; }

void VulkanBackend::set_tensor_async(Tensor& tensor, const void* src, size_t offset, size_t size) {
  VulkanBuffer* buffer = vulkan_buffer_of(tensor.buffer, ctx_);
  if (buffer == nullptr || stream_.idle()) {
    Backend::set_tensor_async(tensor, src, offset, size);
    return;
  }
  const size_t at = checked_offset(*buffer, tensor, offset, size, "set_tensor_async");
  if (size == 0) return;
  if (size > VulkanStagingArena::kBlockSize) {
    synchronize();
    buffer->set_tensor(tensor, src, offset, size);
    return;
  }
  const VulkanStagingArena::Slice slice = arena_.take(size);
  std::memcpy(slice.host, src, size);
  vulkan_record_copy(stream_, *slice.allocation, slice.offset, *buffer->allocation(), at, size);
  stream_.barrier();
}

void VulkanBackend::get_tensor_async(const Tensor& tensor, void* dst, size_t offset, size_t size) {
  const VulkanBuffer* buffer = vulkan_buffer_of(tensor.buffer, ctx_);
  if (buffer == nullptr || stream_.idle()) {
    Backend::get_tensor_async(tensor, dst, offset, size);
    return;
  }
  const size_t at = checked_offset(*buffer, tensor, offset, size, "get_tensor_async");
  if (size == 0) return;
  if (size > VulkanStagingArena::kBlockSize) {
    synchronize();
    buffer->get_tensor(tensor, dst, offset, size);
    return;
  }
  const VulkanStagingArena::Slice slice = arena_.take(size);
  vulkan_record_copy(stream_, *buffer->allocation(), at, *slice.allocation, slice.offset, size);
  stream_.barrier();
  reads_.push_back({slice.host, dst, size});
}

bool VulkanBackend::copy_tensor_async(Backend& src_backend, const Tensor& src, Tensor& dst) {
  VulkanBuffer* to = vulkan_buffer_of(dst.buffer, ctx_);
  if (to == nullptr || src.buffer == nullptr) return false;
  const size_t n = src.nbytes();
  if (n != dst.nbytes()) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("copy_tensor_async on {}: '{}' has {} bytes but '{}' has {}", name(), src.label(),
                            n, dst.label(), dst.nbytes()));
  }
  if (const VulkanBuffer* from = vulkan_buffer_of(src.buffer, ctx_)) {
    const size_t src_at = checked_offset(*from, src, 0, n, "copy_tensor_async");
    const size_t dst_at = checked_offset(*to, dst, 0, n, "copy_tensor_async");
    if (from == to && src_at < dst_at + n && dst_at < src_at + n) return false;  // overlap: stage on the host
    order_after(src_backend);
    if (n != 0) {
      vulkan_record_copy(stream_, *from->allocation(), src_at, *to->allocation(), dst_at, n);
      stream_.barrier();
    }
    return true;
  }
  if (src.buffer->type().is_host()) {
    if (&src_backend != this) src_backend.synchronize();
    set_tensor_async(dst, src.data, 0, n);
    return true;
  }
  return false;
}

void VulkanBackend::order_after(Backend& other) {
  if (&other == this) return;
  auto* same = dynamic_cast<VulkanBackend*>(&other);
  if (same != nullptr && &same->ctx_ == &ctx_) {
    same->flush();
    stream_.wait_for(same->stream_.timeline(), same->stream_.last_submitted());
  } else {
    other.synchronize();
  }
}

void VulkanBackend::synchronize() {
  std::vector<PendingRead> reads;
  reads.swap(reads_);
  try {
    stream_.finish();
  } catch (...) {
    arena_.reset();
    descriptors_.reset();
    throw;
  }
  for (const PendingRead& r : reads) std::memcpy(r.dst, r.staging, r.size);
  arena_.reset();
  descriptors_.reset();
}

void VulkanBackend::compute(Graph& graph) {
  for (const Tensor* node : graph.nodes()) {
    const std::string why = device_.unsupported_reason(*node);
    if (!why.empty()) {
      throw Error(ErrorCode::unsupported,
                  fmt::format("{} cannot compute node '{}': {}", name(), node->label(), why));
    }
  }
  VulkanRecorder recorder(ctx_, stream_, descriptors_);
  for (const Tensor* node : graph.nodes()) vulkan_record_node(recorder, *node);
  stream_.submit();
}

void VulkanBackend::wait(Event& event) {
  auto* ours = dynamic_cast<VulkanEvent*>(&event);
  if (ours != nullptr && ours->timeline() && &ours->timeline()->context() == &ctx_) {
    stream_.wait_for(ours->timeline(), ours->value());
  } else {
    event.synchronize();
  }
}

double VulkanBackend::run_peak_kernel(DType type, double flops) {
  return vulkan_run_peak_kernel(*this, type, flops);
}

}  // namespace bk
