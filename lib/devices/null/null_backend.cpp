// SPDX-License-Identifier: MIT
#include "devices/null/null_backend.h"

#include <fmt/format.h>

#include "bk/error.h"
#include "bk/graph.h"
#include "bk/tensor.h"
#include "devices/null/null_device.h"

namespace bk {

std::string NullBackend::name() const { return device_->name(); }

Device& NullBackend::device() const { return *device_; }

void NullBackend::compute(Graph& graph) {
  for (const Tensor* node : graph.nodes()) {
    if (device_->supports_op(*node)) continue;
    throw Error(ErrorCode::unsupported, fmt::format("{} cannot compute node '{}': {}", device_->name(),
                                                    node->name, device_->unsupported_reason(*node)));
  }
}

bool NullBackend::copy_tensor_async(Backend& src_backend, const Tensor& src, Tensor& dst) {
  if (dst.buffer == nullptr || &dst.buffer->type().device() != device_) return false;
  // src is written by src_backend's work so far, which may still be queued on another device.
  src_backend.synchronize();
  return dst.buffer->copy_tensor(src, dst);
}

}  // namespace bk
