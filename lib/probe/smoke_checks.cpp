// SPDX-License-Identifier: MIT
// Level 1 of `bkctl smoke`: enumeration, memory patterns, host <-> device round trip, a checked
// compute, events.
#include "probe/smoke_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "bk/graph.h"
#include "bk/ops.h"
#include "bk/units.h"
#include "probe/bench_timer.h"
#include "probe/graph_data.h"
#include "probe/mem_pattern.h"
#include "probe/memory_fill.h"
#include "probe/verify/device_run.h"
#include "probe/verify/limits.h"
#include "probe/verify/nmse.h"
#include "probe/verify/reference.h"

namespace bk {
namespace {

using Clock = std::chrono::steady_clock;

double gbps(size_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0;
}

SmokeOutcome verdict(SmokeStatus status, std::string message) {
  SmokeOutcome outcome;
  outcome.status = status;
  outcome.message = std::move(message);
  return outcome;
}

SmokeOutcome check_enumerate(Device& device, const SmokeSettings&) {
  const MemoryInfo memory = device.memory();
  std::vector<std::string> problems;
  if (device.name().empty()) problems.emplace_back("the device has no name");
  if (device.description().empty()) problems.emplace_back("the device has no description");
  if (memory.total == 0) problems.emplace_back("it reports 0 bytes of memory");
  if (memory.free > memory.total) {
    problems.push_back(fmt::format("it reports more free memory ({}) than total ({})",
                                   format_bytes(memory.free), format_bytes(memory.total)));
  }
  SmokeOutcome outcome =
      problems.empty()
          ? verdict(SmokeStatus::pass, fmt::format("{}; {} free of {}", device.description(),
                                                   format_bytes(memory.free), format_bytes(memory.total)))
          : verdict(SmokeStatus::fail, fmt::format("{}: {}", device.name(), fmt::join(problems, "; ")));
  outcome.metrics = {{"memory_total_bytes", static_cast<double>(memory.total)},
                     {"memory_free_bytes", static_cast<double>(memory.free)}};
  return outcome;
}

}  // namespace

std::string mismatch_text(PatternKind kind, const VerifyResult& result, size_t bytes) {
  const PatternMismatch& first = *result.first;
  return fmt::format(
      "{}: {} of {} words read back wrong; first at byte offset {}: expected {:#018x}, got {:#018x}",
      pattern_kind_name(kind), result.mismatches, (bytes + 7) / 8, first.offset, first.expected, first.got);
}

namespace {

SmokeOutcome check_memory(Device& device, const SmokeSettings& settings) {
  const size_t bytes = memory_to_use(device, settings);
  const MemoryInfo memory = device.memory();
  if (bytes > memory.free) {
    return verdict(SmokeStatus::skipped,
                   fmt::format("{} has {} free, less than the {} to check; pass a smaller --mem",
                               device.name(), format_bytes(memory.free), format_bytes(bytes)));
  }
  MemoryFill fill(device, bytes);
  std::vector<std::string> failures;
  double write_seconds = 0;
  double read_seconds = 0;
  size_t mismatches = 0;
  for (PatternKind kind : {PatternKind::walking_ones, PatternKind::address, PatternKind::random}) {
    write_seconds += fill.write(kind);
    const VerifyResult result = fill.verify(kind);
    read_seconds += result.read_seconds;
    mismatches += result.mismatches;
    if (!result.ok()) failures.push_back(mismatch_text(kind, result, bytes));
  }
  SmokeOutcome outcome =
      failures.empty() ? verdict(SmokeStatus::pass,
                                 fmt::format("{} verified with walking ones, address-in-address and random "
                                             "patterns",
                                             format_bytes(bytes)))
                       : verdict(SmokeStatus::fail,
                                 fmt::format("{} memory: {}", device.name(), fmt::join(failures, "; ")));
  outcome.metrics = {{"bytes", static_cast<double>(bytes)},
                     {"mismatched_words", static_cast<double>(mismatches)},
                     {"write_gbps", gbps(3 * bytes, write_seconds)},
                     {"read_gbps", gbps(3 * bytes, read_seconds)}};
  return outcome;
}

SmokeOutcome check_roundtrip(Device& device, const SmokeSettings& settings) {
  const size_t bytes = std::max<size_t>(4, std::min<size_t>(settings.memory_bytes, size_t{64} << 20)) / 4 * 4;
  GraphBuilder builder;
  Tensor& tensor = builder.input(DType::F32, {static_cast<int64_t>(bytes / 4), 1, 1, 1}, "roundtrip");
  std::unique_ptr<Buffer> buffer = device.buffer_type().alloc(device.buffer_type().alloc_size(tensor));
  buffer->place_tensor(tensor, 0);
  std::vector<uint64_t> sent((bytes + 7) / 8);
  for (size_t i = 0; i < sent.size(); ++i) sent[i] = pattern_word(7, i);
  std::vector<uint64_t> back(sent.size(), 0xA5A5A5A5A5A5A5A5ULL);
  std::unique_ptr<Backend> backend = device.init_backend();
  Clock::time_point start = Clock::now();
  backend->set_tensor_async(tensor, sent.data(), 0, bytes);
  backend->synchronize();
  const double up = seconds_since(start);
  start = Clock::now();
  backend->get_tensor_async(tensor, back.data(), 0, bytes);
  backend->synchronize();
  const double down = seconds_since(start);
  size_t wrong = 0;
  for (size_t i = 0; i < bytes; ++i) {
    wrong += reinterpret_cast<const unsigned char*>(sent.data())[i] !=
             reinterpret_cast<unsigned char*>(back.data())[i];
  }
  SmokeOutcome outcome =
      wrong == 0
          ? verdict(SmokeStatus::pass,
                    fmt::format("{} host -> device -> host through a stream", format_bytes(bytes)))
          : verdict(SmokeStatus::fail, fmt::format("{}: {} of {} bytes came back different after a host -> "
                                                   "device -> host round trip",
                                                   device.name(), wrong, bytes));
  outcome.metrics = {{"bytes", static_cast<double>(bytes)},
                     {"host_to_device_gbps", gbps(bytes, up)},
                     {"device_to_host_gbps", gbps(bytes, down)}};
  return outcome;
}

// An add of two 4096-element vectors on one of the device's streams, judged against the float64
// reference: the one computation level 1 asks of every device.
class StreamAdd {
 public:
  explicit StreamAdd(Device& device) : device_(device) {
    GraphBuilder builder;
    Tensor& a = builder.input(DType::F32, {4096, 1, 1, 1}, "a");
    Tensor& b = builder.input(DType::F32, {4096, 1, 1, 1}, "b");
    sum_ = &ops::add(builder, a, b);
    graph_ = builder.build({sum_});
  }

  // Why the device cannot run it, or "" when it can.
  std::string unsupported() const {
    return device_.supports_op(*sum_) ? std::string() : device_.unsupported_reason(*sum_);
  }

  // Computes on a new stream; `wait` is called with the stream after the compute was submitted
  // and must return once the result is in place. Returns the NMSE check of what came back.
  template <typename Wait>
  verify::NmseCheck run(Wait&& wait) {
    verify::DeviceRun device_run(device_, graph_);
    const verify::LeafValues inputs = graph_leaf_values(graph_, 11);
    device_run.write_inputs(inputs);
    std::unique_ptr<Backend> backend = device_.init_backend();
    backend->compute(graph_);
    wait(*backend);
    const verify::Values got = device_run.read(*sum_);
    backend->synchronize();
    return verify::check_nmse(got, verify::Reference(graph_, inputs).values(*sum_),
                              verify::graph_limit(graph_), *sum_);
  }

 private:
  Device& device_;
  Tensor* sum_ = nullptr;
  Graph graph_;
};

SmokeOutcome judged(const verify::NmseCheck& check, std::string pass, std::string fail) {
  SmokeOutcome outcome = check.ok ? verdict(SmokeStatus::pass, std::move(pass))
                                  : verdict(SmokeStatus::fail, fail + ": " + check.message);
  if (std::isfinite(check.nmse)) outcome.metrics = {{"nmse", check.nmse}};
  return outcome;
}

// Every device computes at level 1, with or without events: a device that runs no op at all
// fails here, because a diagnostic that never computes on a device cannot vouch for it.
SmokeOutcome check_compute(Device& device, const SmokeSettings&) {
  StreamAdd add(device);
  if (const std::string why = add.unsupported(); !why.empty()) {
    return verdict(SmokeStatus::fail, fmt::format("{} cannot run an f32 add: {}", device.name(), why));
  }
  return judged(add.run([](Backend& stream) { stream.synchronize(); }),
                "an add computed on a stream matched the float64 reference",
                device.name() + ": an add computed on a stream came back wrong");
}

SmokeOutcome check_events(Device& device, const SmokeSettings&) {
  if (!device.caps().events)
    return verdict(SmokeStatus::not_applicable, device.name() + " does not support events");
  StreamAdd add(device);
  if (const std::string why = add.unsupported(); !why.empty()) {
    return verdict(SmokeStatus::not_applicable,
                   "events are checked on an add, which " + device.name() + " does not run: " + why);
  }
  // The event says the add is done: its result must be there before the stream is synchronized.
  return judged(add.run([&](Backend& stream) {
    std::unique_ptr<Event> event = device.create_event();
    event->record(stream);
    event->synchronize();
  }),
                "an event recorded after a compute was reached with its result in place",
                device.name() +
                    ": after the event recorded behind an add was reached, the result was wrong or "
                    "missing");
}

}  // namespace

std::string_view smoke_status_name(SmokeStatus status) noexcept {
  switch (status) {
    case SmokeStatus::pass:
      return "pass";
    case SmokeStatus::fail:
      return "fail";
    case SmokeStatus::skipped:
      return "skipped";
    case SmokeStatus::error:
      return "error";
    case SmokeStatus::not_applicable:
      return "n/a";
  }
  return "?";
}

size_t memory_to_use(const Device& device, const SmokeSettings& settings) {
  if (!settings.memory_share) return settings.memory_bytes;
  const double share =
      *settings.memory_share / static_cast<double>(std::max<size_t>(1, settings.memory_sharers));
  // Whole 64-bit words, at least one: the patterns are written word by word.
  return std::max<size_t>(8, static_cast<size_t>(share * static_cast<double>(device.memory().free)) / 8 * 8);
}

const std::vector<SmokeCheck>& smoke_checks() {
  static const std::vector<SmokeCheck> checks = {
      {"enumerate", 1, check_enumerate}, {"memory", 1, check_memory},
      {"roundtrip", 1, check_roundtrip}, {"compute", 1, check_compute},
      {"events", 1, check_events},       {"conformance", 2, smoke_conformance},
      {"matmul", 2, smoke_matmul},       {"sustained", 3, smoke_sustained},
  };
  return checks;
}

}  // namespace bk
