// SPDX-License-Identifier: MIT
#pragma once
// The memory limit of the control group this process runs in: a container's, a CI job's, a
// systemd slice's. /proc/meminfo's MemAvailable ignores it, so a process in a 4 GiB container on
// a 512 GiB host would otherwise be told it can use hundreds of gigabytes, and be OOM-killed.
//
// cgroup v2: memory.max and memory.current; cgroup v1: memory.limit_in_bytes and
// memory.usage_in_bytes. Every level from the process's cgroup up to the root of the hierarchy
// is read, because a limit set on an ancestor applies too; the tightest headroom wins.
//
// Threading: any thread; reads files on every call. Errors: none thrown; unreadable or
// malformed files count as "no limit there".

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace bk {

struct CgroupMemoryLimit {
  size_t limit = 0;    // bytes
  size_t usage = 0;    // bytes charged to that cgroup now
  std::string source;  // the limit's file, e.g. "/sys/fs/cgroup/ci.slice/memory.max"
  size_t headroom() const noexcept { return limit > usage ? limit - usage : 0; }
};

// `proc_self_cgroup` is the text of /proc/self/cgroup; `root` the mount point of the cgroup
// file systems. nullopt when no level sets a limit.
std::optional<CgroupMemoryLimit> cgroup_memory_limit(std::string_view proc_self_cgroup,
                                                     const std::string& root);

// This process's, from /proc/self/cgroup and /sys/fs/cgroup (Linux; nullopt elsewhere).
std::optional<CgroupMemoryLimit> cgroup_memory_limit();

}  // namespace bk
