// SPDX-License-Identifier: MIT
#include "devices/cpu/cgroup_memory.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "bk/strings.h"

namespace bk {
namespace {

namespace fs = std::filesystem;

// v1 reports "no limit" as a page-rounded LONG_MAX; anything this large is no limit.
constexpr size_t kUnlimited = size_t{1} << 62;

std::optional<size_t> read_bytes(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  const std::string text =
      trim(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
  size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value >= kUnlimited) return std::nullopt;
  return value;  // "max" (v2's no limit) does not parse
}

// The cgroup path of this process in the hierarchy: v2's "0::/path", or v1's memory controller
// line "N:...memory...:/path".
std::optional<std::pair<bool, std::string>> own_cgroup(std::string_view proc_self_cgroup) {
  std::optional<std::pair<bool, std::string>> v2;
  for (const std::string& line : split(proc_self_cgroup, '\n')) {
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (line.starts_with("0::")) v2 = {true, path};
    for (const std::string& c : split(controllers, ',')) {
      if (c == "memory") return std::pair{false, path};  // v1 memory controller: it holds the limits
    }
  }
  return v2;
}

}  // namespace

std::optional<CgroupMemoryLimit> cgroup_memory_limit(std::string_view proc_self_cgroup,
                                                     const std::string& root) {
  const auto own = own_cgroup(proc_self_cgroup);
  if (!own) return std::nullopt;
  const auto& [v2, path] = *own;
  const fs::path top = v2 ? fs::path(root) : fs::path(root) / "memory";
  const char* limit_file = v2 ? "memory.max" : "memory.limit_in_bytes";
  const char* usage_file = v2 ? "memory.current" : "memory.usage_in_bytes";
  // Inside a container the hierarchy is mounted at its own cgroup, so the path from
  // /proc/self/cgroup may not exist under the mount: then only the top is there to read.
  const fs::path below = fs::path(path).relative_path();
  fs::path dir = below.empty() ? top : top / below;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) dir = top;
  std::optional<CgroupMemoryLimit> tightest;
  for (fs::path level = dir;; level = level.parent_path()) {
    const auto limit = read_bytes(level / limit_file);
    if (limit) {
      CgroupMemoryLimit here{*limit, read_bytes(level / usage_file).value_or(0),
                             (level / limit_file).string()};
      if (!tightest || here.headroom() < tightest->headroom()) tightest = here;
    }
    if (level == top || !level.has_relative_path() || level.parent_path() == level) break;
  }
  return tightest;
}

std::optional<CgroupMemoryLimit> cgroup_memory_limit() {
#if defined(__linux__)
  std::ifstream in("/proc/self/cgroup");
  if (!in) return std::nullopt;
  const std::string text(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>{});
  return cgroup_memory_limit(text, "/sys/fs/cgroup");
#else
  return std::nullopt;
#endif
}

}  // namespace bk
