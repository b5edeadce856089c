// SPDX-License-Identifier: MIT
#pragma once
// What a `bkctl smoke` run demands of the machine, parsed from the command line and the floors
// file, and evaluated against the registry's devices.
//
//   --require 'CUDA>=2'       at least 2 devices of the CUDA family (a BackendReg name)
//   --require 'gpu>=1'        ... or of a device type: cpu, gpu, igpu, accel
//   --require 'Vulkan=1'      exactly one; operators >=, >, =, ==, <=, <
//   --min-memory CUDA0=80GiB  that device exists and reports at least that much total memory
//   --expect floors.json      performance floors (schema bk.floors/v1, schemas/bk.floors.v1.json):
//       { "schema": "bk.floors/v1",
//         "floors": [ { "device": "Vulkan0", "matmul_f32_gflops": 5 },
//                     { "device": "gpu", "sustained_f32_gflops": 4, "sustained_max_cv": 0.2 } ],
//         "interconnect": { "ring_gbps": 10, "allreduce_busbw_gbps": 8 } }
//     "device" names a device, a family, a device type or "*"; the most specific entry that
//     matches a device applies to it, whole (name > family > type > "*"); "interconnect" (optional)
//     holds fleet mode's floors for the bandwidth between ranks.
//
// Parsers throw Error(invalid_argument) with the offending text and an example; evaluation
// never throws. Pure functions over the devices given; safe from any thread.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bk/device.h"
#include "probe/smoke_checks.h"

namespace bk {

struct SmokeRequirement {
  std::string text;     // as written: "CUDA>=2"
  std::string subject;  // "CUDA", "gpu"
  std::string op;       // ">=", ">", "==", "<=", "<"
  size_t count = 0;
};
SmokeRequirement parse_requirement(std::string_view text);

struct SmokeMinMemory {
  std::string text;    // "CUDA0=80GiB"
  std::string device;  // "CUDA0"
  size_t bytes = 0;
};
SmokeMinMemory parse_min_memory(std::string_view text);

// The outcome of one requirement or minimum: met, and a sentence saying what was found.
struct SmokeVerdict {
  bool met = false;
  bool device_missing = false;  // a required device (kind) is absent: exit code 3, not 1
  size_t found = 0;             // devices counted (requirement) or bytes reported (memory)
  std::string message;
};

// `regs` supplies the families and, for a family with no devices, its status() as the reason.
SmokeVerdict evaluate_requirement(const SmokeRequirement& requirement, const std::vector<Device*>& devices,
                                  const std::vector<BackendReg*>& regs);
SmokeVerdict evaluate_min_memory(const SmokeMinMemory& minimum, const std::vector<Device*>& devices);

struct SmokeFloorEntry {
  std::string device;
  SmokeFloors floors;
};
// Fleet mode's floors for the interconnect check (GB/s between ranks).
struct InterconnectFloors {
  std::optional<double> ring_gbps;
  std::optional<double> allreduce_busbw_gbps;
};

struct SmokeFloorsFile {
  std::vector<SmokeFloorEntry> devices;
  InterconnectFloors interconnect;
};
// Parses the floors file's text; `origin` (the path) names it in errors.
SmokeFloorsFile parse_floors(std::string_view text, std::string_view origin);
// The most specific entry for this device, or no floors.
SmokeFloors floors_for(const Device& device, const std::vector<SmokeFloorEntry>& entries);

// "60s", "2s", "500ms", "5m", "1.5" (seconds); > 0. `option` names the flag in errors.
double parse_duration_seconds(std::string_view text, std::string_view option);

// "90%", "12.5%": a share in (0, 1]; nothing when the text does not end with '%' (it may be a
// size); Error(invalid_argument) for a percentage out of (0, 100]. `option` names the flag.
std::optional<double> parse_percent(std::string_view text, std::string_view option);

// "fail,error", "fail,error,skipped", "none": the statuses that fail the run.
std::vector<SmokeStatus> parse_fail_on(std::string_view text);

}  // namespace bk
