// SPDX-License-Identifier: MIT
#pragma once
// The bk.devices/v1 document (schemas/bk.devices.v1.json): every device with its properties
// and describe() details, every backend family with its status, and the plugin load report.

#include <nlohmann/json.hpp>

#include <string>

#include "bk/registry.h"
#include "output/json_out.h"

namespace bkctl {

inline constexpr std::string_view kDevicesSchema = "bk.devices/v1";

ojson devices_document(const bk::Registry& registry);

// A device's describe() output; a device that fails to describe itself gets {"error": why}
// instead, so one broken device does not hide the others.
nlohmann::json details_or_error(const bk::Device& device);

}  // namespace bkctl
