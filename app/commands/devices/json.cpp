// SPDX-License-Identifier: MIT
#include "commands/devices/json.h"

#include "bk/error.h"
#include "bk/version.h"
#include "probe/device_details.h"

namespace bkctl {
namespace {

ojson caps_json(const bk::DeviceCaps& caps) {
  ojson out = ojson::object();
  out["async"] = caps.async;
  out["host_buffer"] = caps.host_buffer;
  out["buffer_from_host_ptr"] = caps.buffer_from_host_ptr;
  out["events"] = caps.events;
  return out;
}

ojson buffer_type_json(const bk::BufferType& type) {
  ojson out = ojson::object();
  out["name"] = type.name();
  out["alignment"] = type.alignment();
  out["max_size"] = type.max_size();
  out["is_host"] = type.is_host();
  return out;
}

ojson device_json(size_t index, bk::Device& device) {
  ojson out = ojson::object();
  out["index"] = index;
  out["name"] = device.name();
  out["reg"] = device.reg().name();
  out["type"] = bk::device_type_name(device.type());
  out["description"] = device.description();
  out["stable_id"] = string_or_null(device.stable_id());
  out["simulated"] = device.is_simulated();
  const bk::MemoryInfo memory = device.memory();
  out["memory"] = ojson{{"free", memory.free}, {"total", memory.total}};
  out["caps"] = caps_json(device.caps());
  out["buffer_type"] = buffer_type_json(device.buffer_type());
  const bk::BufferType* host_type = device.host_buffer_type();
  out["host_buffer_type"] = host_type != nullptr ? buffer_type_json(*host_type) : ojson(nullptr);
  out["details"] = to_ordered(details_or_error(device));
  return out;
}

ojson backends_json(const bk::Registry& registry) {
  ojson out = ojson::array();
  for (bk::BackendReg* reg : registry.regs()) {
    ojson entry = ojson::object();
    entry["name"] = reg->name();
    entry["device_count"] = reg->devices().size();
    entry["status"] = string_or_null(reg->status());
    out.push_back(std::move(entry));
  }
  return out;
}

ojson plugins_json(const bk::Registry& registry) {
  ojson out = ojson::array();
  for (const bk::PluginAttempt& attempt : registry.plugin_report()) {
    ojson entry = ojson::object();
    entry["name"] = attempt.name;
    entry["status"] = bk::plugin_status_name(attempt.status);
    entry["path"] = string_or_null(attempt.path);
    entry["reason"] = string_or_null(attempt.reason);
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

nlohmann::json details_or_error(const bk::Device& device) {
  try {
    return bk::device_details(device);
  } catch (const bk::Error& error) {
    return nlohmann::json{{"error", error.what()}};
  }
}

ojson devices_document(const bk::Registry& registry) {
  ojson document = json_document(kDevicesSchema);
  document["bkctl_version"] = bk::kVersion;
  ojson devices = ojson::array();
  const auto& all = registry.devices();
  for (size_t i = 0; i < all.size(); ++i) devices.push_back(device_json(i, *all[i]));
  document["devices"] = std::move(devices);
  document["backends"] = backends_json(registry);
  document["plugins"] = plugins_json(registry);
  return document;
}

}  // namespace bkctl
