// SPDX-License-Identifier: MIT
#pragma once
// CLI11 validators the subcommands share, so that the same mistake gets the same message from
// every command (exit 2, as for any other usage error).

#include <CLI/CLI.hpp>

#include <string>

namespace bkctl {

// A --device that is given must name something: `--device ''` (an unset shell variable) would
// otherwise read as "every device".
inline CLI::Validator names_a_device() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        return value.find_first_not_of(" \t,") == std::string::npos
                   ? "an empty device name; give one such as CPU or Vulkan0 (see 'bkctl devices'), or leave "
                     "the "
                     "option out for every device"
                   : std::string();
      },
      "NAME");
}

}  // namespace bkctl
