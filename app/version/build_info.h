// SPDX-License-Identifier: MIT
#pragma once
// What `bkctl --version` reports: which bkctl this is and how it was built.

#include <string>
#include <string_view>
#include <vector>

namespace bkctl {

struct BuildInfo {
  std::string_view version;          // bk's version, "0.1.0"
  std::string_view commit;           // git commit of the source, "-dirty" when changed; or "unknown"
  std::string_view build_type;       // CMake build type: "Release", "RelWithDebInfo", ...
  std::string_view compiler;         // "GNU 12.2.0"
  std::vector<std::string> plugins;  // the plugins this build produced ("vulkan", "cuda", ...)
};

BuildInfo build_info();

}  // namespace bkctl
