// SPDX-License-Identifier: MIT
#pragma once
// What a benchmark record says about the host: the CPU model, logical CPUs and the OS -- never
// the hostname or user (records get shared). Read from /proc/cpuinfo, /etc/os-release and
// uname(); a field that cannot be read is empty. Never throws; safe from any thread.

#include <string>

namespace bk {

struct HostInfo {
  std::string cpu;  // "AMD EPYC 7B13 64-Core Processor"
  int logical_cpus = 0;
  std::string os;      // "Debian GNU/Linux 12 (bookworm)"
  std::string kernel;  // "Linux 6.1.0-18-amd64"
  std::string arch;    // "x86_64"
};

HostInfo host_info();

}  // namespace bk
