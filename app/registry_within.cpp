// SPDX-License-Identifier: MIT
#include "registry_within.h"

#include <fmt/format.h>

#include <chrono>

#include "bk/error.h"
#include "probe/smoke_policy.h"
#include "probe/smoke_watchdog.h"

namespace bkctl {

const bk::Registry& registry_within(const std::string& timeout) {
  const double seconds = bk::parse_duration_seconds(timeout, "--timeout");
  if (!bk::run_within([] { bk::Registry::global(); }, std::chrono::duration<double>(seconds))) {
    throw bk::Error(
        bk::ErrorCode::timeout,
        fmt::format("finding the devices did not finish within --timeout {}: a device plugin or its "
                    "driver hangs in its initialisation; to find which, point BK_BACKEND_PATH at a "
                    "directory holding only some of the libbk-*.so plugins",
                    timeout));
  }
  return bk::Registry::global();
}

}  // namespace bkctl
