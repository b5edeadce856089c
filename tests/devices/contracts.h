// SPDX-License-Identifier: MIT
#pragma once
// The device contracts: what every device of the registry does, whatever its kind. The headers
// are the contracts (bk/device.h, bk/buffer.h, bk/host_buffer.h); each function here checks one
// group of their clauses, on one device, and fails when the device breaks one. A capability the
// device does not declare (DeviceCaps) is checked the other way round: the call must refuse.
//
// contract_main.cpp registers every contract for every device as its own test,
// Contract/<Reg>/<Device>.<contract>, so a device kind added as a folder is tested without
// editing this suite.

#include <span>

#include "bk/device.h"

namespace bk::contract {

using ContractFn = void (*)(Device& device);

struct Contract {
  const char* name;  // the test name: "buffer_alloc"
  ContractFn run;
};

// Every contract, in registration order.
std::span<const Contract> all_contracts();

// The NAME=VALUE settings of this run of the suite (an empty VALUE unsets NAME), applied before
// the registry is built. Each run's executable defines it (tests/devices/CMakeLists.txt).
std::span<const char* const> run_environment();

// identity.cpp: names, description, memory, reg and stream identity; describe() is JSON.
void identity(Device& device);
void describe(Device& device);
// buffers.cpp: allocation, placement, bounds, contents, copies between buffers.
void buffer_alloc(Device& device);
void alloc_failure(Device& device);
void placement(Device& device);
void views(Device& device);
void bounds(Device& device);
void round_trip(Device& device);
void copies(Device& device);
// streams.cpp: a Backend's transfers, copies and compute, in stream order.
void copy_async(Device& device);
void stream_order_transfers(Device& device);
void stream_order_compute(Device& device);
void compute_views(Device& device);
void compute_refuses_unsupported(Device& device);
// events.cpp: events and timing events, or their refusal.
void events(Device& device);
void timing_events(Device& device);
// host_memory.cpp: the host buffer type and wrapping caller memory, or their refusal.
void host_buffer(Device& device);
void buffer_from_host_ptr(Device& device);

}  // namespace bk::contract
