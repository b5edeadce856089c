// SPDX-License-Identifier: MIT
#include "probe/device_details.h"

namespace bk {

nlohmann::json device_details(const Device& device) {
  Properties properties;
  device.describe(properties);
  return nlohmann::json::parse(properties.to_json());
}

}  // namespace bk
