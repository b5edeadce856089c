// SPDX-License-Identifier: MIT
#pragma once
// The process-wide registry, built under a deadline. Finding the devices loads every plugin and
// initialises its driver, and a driver stuck there would hang the command forever; every
// command that touches a device starts here with its --timeout.
//
// Errors: bk::Error(timeout) (exit 5) when loading did not finish in time; the loading thread is
// then abandoned inside the plugin (probe/smoke_watchdog.h) and main() leaves with _Exit.
// What loading throws is rethrown. Call from the command's thread.

#include <string>

#include "bk/registry.h"

namespace bkctl {

// `timeout` is the option as the user wrote it ("60s"), for the message.
const bk::Registry& registry_within(const std::string& timeout);

}  // namespace bkctl
