// SPDX-License-Identifier: MIT
// Events (caps().events) and timing events (caps().event_timing): marks in a stream that other
// streams and the host wait for, and device time between two of them. Without the capability the
// factory refuses with Error(unsupported) naming the device.
#include <algorithm>
#include <chrono>

#include "contract_util.h"
#include "contracts.h"

namespace bk::contract {
namespace {

constexpr size_t kEventBytes = kMiB;
constexpr size_t kTimedBytes = 32 * kMiB;

double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Device work on `backend` that takes measurable time: four copies of 32 MiB on the stream, or
// four writes of it from the host where the stream does not copy.
void queue_work(Backend& backend, Placed& a, Placed& b, const std::vector<uint8_t>& host) {
  for (int i = 0; i < 4; ++i) {
    if (!backend.copy_tensor_async(backend, a.tensor, b.tensor)) {
      backend.set_tensor_async(b.tensor, host.data(), 0, host.size());
    }
  }
}

}  // namespace

// record() marks what a stream submitted so far; synchronize() waits for it on the host,
// Backend::wait on another stream of the device; an event refuses other devices' streams.
void events(Device& device) {
  if (!device.caps().events) {
    expect_error([&] { device.create_event(); }, ErrorCode::unsupported, "create_event without caps().events",
                 {device.name()});
    return;
  }
  auto event = device.create_event();
  ASSERT_NE(event, nullptr);
  EXPECT_EQ(&event->device(), &device);
  event->synchronize();  // never recorded: nothing to wait for

  BufferType& type = device.buffer_type();
  auto producer = device.init_backend();
  auto consumer = device.init_backend();
  Placed a = placed(type, kEventBytes, "a");
  Placed b = placed(type, kEventBytes, "b");
  a.buffer->clear(0);
  b.buffer->clear(0);
  const std::vector<uint8_t> in = pattern(kEventBytes, 31);
  producer->set_tensor_async(a.tensor, in.data(), 0, kEventBytes);
  event->record(*producer);
  consumer->wait(*event);  // the consumer's work below runs after the producer's write
  std::vector<uint8_t> got(kEventBytes);
  const bool copied = consumer->copy_tensor_async(*consumer, a.tensor, b.tensor);
  consumer->get_tensor_async(a.tensor, got.data(), 0, kEventBytes);
  consumer->synchronize();
  EXPECT_TRUE(got == in) << "a stream that waited for the event sees the work before it";
  if (copied) {
    EXPECT_TRUE(contents(b.tensor) == in) << "a copy after the wait read the producer's write";
  }
  event->synchronize();
  EXPECT_TRUE(contents(a.tensor) == in) << "the host sees the work before a reached event";

  // Recorded again: the event moves to the new point.
  const std::vector<uint8_t> again = pattern(kEventBytes, 32);
  producer->set_tensor_async(b.tensor, again.data(), 0, kEventBytes);
  event->record(*producer);
  event->synchronize();
  EXPECT_TRUE(contents(b.tensor) == again);
  producer->synchronize();

  Device& other = other_device(device);
  auto foreign = other.init_backend();
  expect_error([&] { event->record(*foreign); }, ErrorCode::invalid_argument,
               "recording an event of " + device.name() + " on " + other.name() + "'s stream");
}

// seconds_since() between two timing events recorded on one stream is the device time between
// them: >= 0, larger around work than around nothing, never more than the host saw. It refuses
// events that were never recorded or made without timing.
void timing_events(Device& device) {
  if (!device.caps().event_timing) {
    expect_error([&] { device.create_timing_event(); }, ErrorCode::unsupported,
                 "create_timing_event without caps().event_timing", {device.name()});
    if (device.caps().events) {
      auto backend = device.init_backend();
      auto start = device.create_event();
      auto stop = device.create_event();
      start->record(*backend);
      stop->record(*backend);
      stop->synchronize();
      expect_error([&] { stop->seconds_since(*start); }, ErrorCode::unsupported,
                   "seconds_since of plain events");
    }
    return;
  }
  ASSERT_TRUE(device.caps().events) << "timing events are events";
  if (device.memory().free < 4 * kTimedBytes) {
    GTEST_SKIP() << device.name() << " has " << device.memory().free << " bytes free; the check needs "
                 << 4 * kTimedBytes;
  }
  auto backend = device.init_backend();
  auto start = device.create_timing_event();
  auto stop = device.create_timing_event();
  expect_error([&] { stop->seconds_since(*start); }, ErrorCode::invalid_argument,
               "seconds_since, never recorded");

  Placed a = placed(device.buffer_type(), kTimedBytes, "a");
  Placed b = placed(device.buffer_type(), kTimedBytes, "b");
  const std::vector<uint8_t> host = pattern(kTimedBytes, 33);
  a.buffer->set_tensor(a.tensor, host.data(), 0, kTimedBytes);
  const double t0 = host_seconds();
  start->record(*backend);
  queue_work(*backend, a, b, host);
  stop->record(*backend);
  stop->synchronize();
  const double host_time = host_seconds() - t0;
  const double work = stop->seconds_since(*start);
  // The shortest of a few empty intervals: one descheduled thread must not fail the check.
  double nothing = work;
  for (int i = 0; i < 5; ++i) {
    start->record(*backend);
    stop->record(*backend);
    stop->synchronize();
    const double empty = stop->seconds_since(*start);
    EXPECT_GE(empty, 0.0);
    nothing = std::min(nothing, empty);
  }
  EXPECT_GT(work, 0.0);
  EXPECT_LE(work, host_time * 1.01 + 1e-4) << "device time cannot exceed the host time around it";
  EXPECT_LT(nothing, work / 4)
      << "nothing between two points took longer than a quarter of 128 MiB of copies";

  auto plain = device.create_event();
  plain->record(*backend);
  plain->synchronize();
  expect_error([&] { plain->seconds_since(*stop); }, ErrorCode::unsupported,
               "seconds_since of a plain event");
  expect_error([&] { stop->seconds_since(*plain); }, ErrorCode::invalid_argument,
               "seconds_since a plain event's point");
  backend->synchronize();
}

}  // namespace bk::contract
