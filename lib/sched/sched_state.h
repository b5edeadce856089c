// SPDX-License-Identifier: MIT
#pragma once
// SchedState: what the scheduler's passes share for one graph. The passes (passes.h) read the
// graph and the backends and fill `decision`; each is a plain function over this state so that
// it can be tested alone.
//
// Backends are in priority order, the last a CPU device. `fixed` says which tensors already
// have memory (or are declared to have it: see Scheduler::assume_buffer): those never move.
// Vectors are reused between graphs: prepare() allocates nothing once sizes have been seen.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "bk/device.h"
#include "bk/scheduler.h"
#include "sched/decision.h"
#include "sched/sched_graph.h"

namespace bk {

struct SchedBackend {
  Backend* backend = nullptr;
  Device* device = nullptr;
  BufferType* compute_type = nullptr;  // where the scheduler puts the tensors it places
};

using TensorPin = std::pair<const Tensor*, int>;                 // tensor, backend index
using TensorHome = std::pair<const Tensor*, const BufferType*>;  // tensor, declared memory

struct SchedState {
  const SchedGraph* graph = nullptr;
  std::span<const SchedBackend> backends;
  SchedOptions options;
  std::vector<const BufferType*> fixed;  // per id: the buffer type its memory is in; null: ours to place
  std::vector<int16_t> pin;              // per id: pinned backend, or -1
  std::vector<Decision> decision;        // per id

  // Pins and homes of tensors that are not in the graph are ignored.
  void prepare(const SchedGraph& g, std::span<const SchedBackend> b, const SchedOptions& o,
               std::span<const TensorPin> pins, std::span<const TensorHome> homes);

  int count() const noexcept { return static_cast<int>(backends.size()); }
  int cpu() const noexcept { return count() - 1; }
  Device& device(int b) const noexcept { return *backends[static_cast<size_t>(b)].device; }
  int16_t backend(int32_t id) const noexcept { return decision[static_cast<size_t>(id)].backend; }
  bool decided(int32_t id) const noexcept { return backend(id) >= 0; }
  void decide(int32_t id, int b, Cause cause, int32_t via) noexcept {
    decision[static_cast<size_t>(id)] = {static_cast<int16_t>(b), cause, via};
  }

  // Device b runs node id (Device::supports_op, asked once per node and backend).
  bool supports(int32_t id, int b) const;
  // Device b reads tensor id where it lives, without a copy: it lives on b, or b supports the
  // buffer type of its memory. False while its storage is undecided.
  bool readable(int b, int32_t id) const;
  // The backend a buffer type belongs to: its own device when that is one of the backends,
  // else the first whose device supports it; -1 when none does.
  int backend_of_type(const BufferType& type) const;
  // Views and cpy nodes compute into memory that another tensor owns; they live with it.
  bool follows_memory(int32_t id) const noexcept { return graph->is_view(id) || graph->storage(id) != id; }

 private:
  mutable std::vector<int8_t> support_;  // per id * count() + b: -1 unknown, 0, 1
  std::vector<uint8_t> reads_compute_;   // per reader * count() + owner: reads its compute buffers
};

}  // namespace bk
