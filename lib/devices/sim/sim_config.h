// SPDX-License-Identifier: MIT
#pragma once
// The configuration language of simulated devices (BK_SIM_DEVICES):
//
//   BK_SIM_DEVICES='gpu0:type=gpu,ops=mul_mat+add,mem=8GiB;gpu1:type=igpu,mem=2GiB'
//
// Devices are separated by ';', a device is NAME[:KEY=VALUE,...], list values are joined with
// '+'. Every key, its default and its meaning is one row of the table in sim_config.cpp, and
// sim_config_help() prints them; adding a behaviour is adding a field here and a row there.
// Parsing throws Error(invalid_argument) naming the device, the key and what is accepted.

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bk/device.h"
#include "bk/dtype.h"
#include "bk/op.h"

namespace bk {

// Faults a simulated device can inject, so that checks such as `bkctl smoke` can prove they
// catch them (fault=NAME in BK_SIM_DEVICES):
//   corrupt_byte   every write through Buffer::write flips bit 4 of the byte at the middle of
//                  the buffer when it covers that byte (a stuck memory cell)
//   wrong_results  every compute adds 1 + |x| to element 0 of each f32 node it computes (cpy
//                  included)
// With onset=DUR, wrong_results, hang and slow=N begin only once a stream has been computing for
// DUR since its first compute: faults that come with heat, in the middle of a burn-in.
//   hang           compute never returns (an asynchronous stream's job never finishes, so
//                  synchronize never returns) until the process exits
//   alloc_fail     every allocation fails with Error(out_of_memory), whatever memory is free
//   hang_init      loading the plugin never returns (a driver stuck in its initialisation), so
//                  finding the devices hangs until the process exits
enum class SimFault { none, corrupt_byte, wrong_results, hang, alloc_fail, hang_init };
const char* sim_fault_name(SimFault fault) noexcept;

struct SimDeviceConfig {
  std::string name;  // device name, unique: "gpu0"
  std::string text;  // the entry as written, for describe()
  DeviceType type = DeviceType::gpu;
  std::set<Op> ops;                 // compute ops it runs; leafs and views always pass
  std::set<DType> types;            // dtypes every tensor of a node must have
  size_t memory = size_t{8} << 30;  // bytes that its buffers may hold in total
  size_t max_buffer = 0;            // largest single buffer; 0 means `memory`
  size_t alignment = 64;
  bool events = true;
  bool async = false;                // its stream runs work on a thread of its own
  std::set<Op> offload;              // ops it asks for even when their weights are in host memory
  long long offload_min_batch = 32;  // ... when the node has at least this many rows (ne[1])
  std::vector<std::string> reads;    // other buffer types it reads in place ("CPU" = host memory)
  std::string description;           // empty: generated from the above
  SimFault fault = SimFault::none;   // injected fault (see SimFault)
  long long jitter = 1;              // every other compute runs its graph this many times
  long long slow = 1;                // every compute runs its graph this many times
  double onset_seconds = 0;  // wrong_results, hang and slow begin this long after a stream's first compute
};

// Parses the whole variable; an empty text gives no devices.
std::vector<SimDeviceConfig> parse_sim_config(std::string_view text);

// One line per key: "ops=all|OP+OP  compute ops it runs (default all)".
std::string sim_config_help();

}  // namespace bk
