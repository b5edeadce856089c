// SPDX-License-Identifier: MIT
#include "probe/host_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string_view>

namespace bk {
namespace {

// The value after "key" and a separator (':' or '=') on the first line starting with key.
std::string field(const char* path, std::string_view key, char sep) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with(key)) continue;
    const size_t at = line.find(sep);
    if (at == std::string::npos) continue;
    std::string v = line.substr(at + 1);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t' || v.front() == '"')) v.erase(v.begin());
    while (!v.empty() && (v.back() == ' ' || v.back() == '"')) v.pop_back();
    return v;
  }
  return {};
}

}  // namespace

HostInfo host_info() {
  HostInfo h;
  h.cpu = field("/proc/cpuinfo", "model name", ':');
  if (h.cpu.empty()) h.cpu = field("/proc/cpuinfo", "Model", ':');  // arm64
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  h.logical_cpus = n > 0 ? static_cast<int>(n) : 0;
  h.os = field("/etc/os-release", "PRETTY_NAME", '=');
  utsname u{};
  if (uname(&u) == 0) {
    h.kernel = std::string(u.sysname) + " " + u.release;
    h.arch = u.machine;
  }
  return h;
}

}  // namespace bk
