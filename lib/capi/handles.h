// SPDX-License-Identifier: MIT
#pragma once
// What the opaque handles of the C API (bk/bk.h) are. Device and buffer type handles wrap the
// registry's objects once, for the life of the process, and keep the strings their getters
// return; buffers and graphs belong to the caller; a bk_tensor is a bk::Tensor of its graph.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "bk/bk.h"
#include "bk/buffer.h"
#include "bk/device.h"
#include "bk/graph.h"

struct bk_buffer_type {
  bk::BufferType* type = nullptr;
  bk_device* device = nullptr;
  std::string name;
};

struct bk_device {
  bk::Device* device = nullptr;
  std::string name;
  std::string description;
  std::string stable_id;
  // Asked for on first use (a device may set up its memory then), once.
  std::once_flag types_once;
  std::unique_ptr<bk_buffer_type> buffer_type;
  std::unique_ptr<bk_buffer_type> host_buffer_type;  // null when the device has none
};

struct bk_buffer {
  std::unique_ptr<bk::Buffer> buffer;
  bk_buffer_type* type = nullptr;
};

// A graph under construction (builder, outputs), then built (graph) when first scheduled.
struct bk_graph {
  bk::GraphBuilder builder;
  std::vector<bk::Tensor*> outputs;
  std::unordered_set<const bk::Tensor*> tensors;  // every tensor handed out by this graph
  std::optional<bk::Graph> graph;
};

namespace bk::capi {

// Every device of Registry::global(), wrapped once, in the registry's order.
const std::vector<std::unique_ptr<bk_device>>& devices();
// The device with this name (case-insensitive), or Error(not_found) naming the devices there are
// and the plugins that failed to load.
bk_device& find_handle(std::string_view name);
// The handle of a registry device.
bk_device& handle_of(const Device& device);
// Fills device.buffer_type and host_buffer_type on first use.
void load_buffer_types(bk_device& device);

inline Tensor& tensor_of(bk_tensor* tensor) { return *reinterpret_cast<Tensor*>(tensor); }
inline bk_tensor* handle_of(Tensor& tensor) { return reinterpret_cast<bk_tensor*>(&tensor); }

}  // namespace bk::capi
