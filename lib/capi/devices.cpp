// SPDX-License-Identifier: MIT
// The C API's devices: the registry's, wrapped once; their getters and description.
#include <nlohmann/json.hpp>

#include "bk/registry.h"
#include "capi/errors.h"
#include "capi/handles.h"

namespace bk::capi {
namespace {

static_assert(BK_DEVICE_TYPE_CPU == static_cast<int>(DeviceType::cpu));
static_assert(BK_DEVICE_TYPE_GPU == static_cast<int>(DeviceType::gpu));
static_assert(BK_DEVICE_TYPE_IGPU == static_cast<int>(DeviceType::igpu));
static_assert(BK_DEVICE_TYPE_ACCEL == static_cast<int>(DeviceType::accel));

std::unique_ptr<bk_device> wrap(Device& device) {
  auto out = std::make_unique<bk_device>();
  out->device = &device;
  out->name = device.name();
  out->description = device.description();
  out->stable_id = device.stable_id();
  return out;
}

nlohmann::ordered_json caps_json(const DeviceCaps& caps) {
  return {{"async", caps.async},
          {"host_buffer", caps.host_buffer},
          {"buffer_from_host_ptr", caps.buffer_from_host_ptr},
          {"events", caps.events},
          {"event_timing", caps.event_timing}};
}

std::string describe_json(const bk_device& handle) {
  const Device& d = *handle.device;
  Properties properties;
  d.describe(properties);
  const MemoryInfo memory = d.memory();
  nlohmann::ordered_json out;
  out["name"] = handle.name;
  out["description"] = handle.description;
  out["type"] = device_type_name(d.type());
  out["stable_id"] =
      handle.stable_id.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(handle.stable_id);
  out["simulated"] = d.is_simulated();
  out["memory"] = {{"free", memory.free}, {"total", memory.total}};
  out["caps"] = caps_json(d.caps());
  out["properties"] = nlohmann::ordered_json::parse(properties.to_json());
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

const std::vector<std::unique_ptr<bk_device>>& devices() {
  // Built once, thread-safely; if the registry throws, the next call tries again.
  static const std::vector<std::unique_ptr<bk_device>> table = [] {
    std::vector<std::unique_ptr<bk_device>> out;
    for (Device* d : Registry::global().devices()) out.push_back(wrap(*d));
    return out;
  }();
  return table;
}

bk_device& find_handle(std::string_view name) {
  // not_found names the devices there are and the plugins that failed to load.
  return handle_of(Registry::global().device(name));
}

bk_device& handle_of(const Device& device) {
  for (const auto& d : devices()) {
    if (d->device == &device) return *d;
  }
  throw Error(ErrorCode::not_found, "device '" + device.name() + "' is not in the registry");
}

void load_buffer_types(bk_device& d) {
  std::call_once(d.types_once, [&d] {
    auto wrap_type = [&d](BufferType& type) {
      return std::unique_ptr<bk_buffer_type>(new bk_buffer_type{&type, &d, type.name()});
    };
    d.buffer_type = wrap_type(d.device->buffer_type());
    if (BufferType* host = d.device->host_buffer_type()) d.host_buffer_type = wrap_type(*host);
  });
}

}  // namespace bk::capi

using bk::capi::get;
using bk::capi::guard;
using bk::capi::require;
using bk::capi::reset;

extern "C" {

BK_API size_t bk_device_count(void) {
  return get("bk_device_count", size_t{0}, [] { return bk::capi::devices().size(); });
}

BK_API bk_status bk_device_get(size_t index, bk_device** out) {
  reset(out);
  return guard("bk_device_get", [&] {
    require(out, "out");
    const auto& all = bk::capi::devices();
    if (index >= all.size()) {
      bk::Registry::global().device(index);  // throws not_found, naming the devices there are
      throw bk::Error(bk::ErrorCode::not_found, "no device with index " + std::to_string(index));
    }
    *out = all[index].get();
  });
}

BK_API bk_status bk_device_find(const char* name, bk_device** out) {
  reset(out);
  return guard("bk_device_find", [&] {
    require(out, "out");
    require(name, "name");
    *out = &bk::capi::find_handle(name);
  });
}

BK_API const char* bk_device_name(const bk_device* device) {
  return get("bk_device_name", static_cast<const char*>(nullptr),
             [&] { return require(device, "device").name.c_str(); });
}

BK_API const char* bk_device_description(const bk_device* device) {
  return get("bk_device_description", static_cast<const char*>(nullptr),
             [&] { return require(device, "device").description.c_str(); });
}

BK_API const char* bk_device_stable_id(const bk_device* device) {
  return get("bk_device_stable_id", static_cast<const char*>(nullptr),
             [&] { return require(device, "device").stable_id.c_str(); });
}

BK_API bk_device_type bk_device_get_type(const bk_device* device) {
  return get("bk_device_get_type", BK_DEVICE_TYPE_ACCEL,
             [&] { return static_cast<bk_device_type>(require(device, "device").device->type()); });
}

BK_API const char* bk_device_type_name(bk_device_type type) {
  switch (type) {
    case BK_DEVICE_TYPE_CPU:
    case BK_DEVICE_TYPE_GPU:
    case BK_DEVICE_TYPE_IGPU:
    case BK_DEVICE_TYPE_ACCEL:
      return bk::device_type_name(static_cast<bk::DeviceType>(type));
    case BK_DEVICE_TYPE_MAX_ENUM:
      break;
  }
  return "unknown";
}

BK_API bk_status bk_device_memory(const bk_device* device, size_t* free_bytes, size_t* total_bytes) {
  reset(free_bytes);
  reset(total_bytes);
  return guard("bk_device_memory", [&] {
    const bk::MemoryInfo memory = require(device, "device").device->memory();
    if (free_bytes != nullptr) *free_bytes = memory.free;
    if (total_bytes != nullptr) *total_bytes = memory.total;
  });
}

BK_API bk_status bk_device_caps_get(const bk_device* device, bk_device_caps* out) {
  reset(out);
  return guard("bk_device_caps_get", [&] {
    require(out, "out");
    const bk::DeviceCaps caps = require(device, "device").device->caps();
    *out = {caps.async, caps.host_buffer, caps.buffer_from_host_ptr, caps.events, caps.event_timing};
  });
}

BK_API bk_status bk_device_describe_json(const bk_device* device, char** json) {
  reset(json);
  return guard("bk_device_describe_json", [&] {
    require(json, "json");
    *json = bk::capi::copy_string(bk::capi::describe_json(require(device, "device")));
  });
}

}  // extern "C"
