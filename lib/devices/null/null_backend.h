// SPDX-License-Identifier: MIT
#pragma once
// The null device's stream. It runs in order by finishing every call before it returns: transfers
// go straight to the buffer (the defaults of bk::Backend), copies between buffers happen at once,
// synchronize() has nothing to wait for. compute() refuses every node, naming it, as the device
// supports none. A real device would queue work here and make synchronize() and events wait.
//
// Used by one thread at a time (bk/device.h).

#include "bk/device.h"

namespace bk {

class NullDevice;

class NullBackend final : public Backend {
 public:
  explicit NullBackend(NullDevice& device) noexcept : device_(&device) {}

  std::string name() const override;
  Device& device() const override;
  // Throws Error(unsupported) naming the first node and the reason; a graph without nodes is done.
  void compute(Graph& graph) override;
  // Copies into a buffer of this device from memory it reads directly, once src_backend's work
  // so far is done; false for any other destination or source.
  bool copy_tensor_async(Backend& src_backend, const Tensor& src, Tensor& dst) override;

 private:
  NullDevice* device_;
};

}  // namespace bk
