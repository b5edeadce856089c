// SPDX-License-Identifier: MIT
#pragma once
// A device's describe() properties as the nested JSON object they describe: what
// `bkctl devices --verbose` and --json show. Errors: whatever describe() throws.

#include <nlohmann/json.hpp>

#include "bk/device.h"

namespace bk {

nlohmann::json device_details(const Device& device);

}  // namespace bk
