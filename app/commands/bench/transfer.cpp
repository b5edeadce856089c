// SPDX-License-Identifier: MIT
// `bkctl bench`: transfers (host<->device, pageable and pinned, device<->device), latency (a
// one-node graph, an event round trip) and the peak-arithmetic kernel.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "bk/graph.h"
#include "bk/graph_allocator.h"
#include "bk/ops.h"
#include "commands/bench/cli.h"
#include "commands/bench/util.h"
#include "probe/verify/rng.h"

namespace bkctl {
namespace {

struct Placed {
  std::unique_ptr<bk::Buffer> buffer;
  bk::Tensor tensor;
};

std::unique_ptr<Placed> place(bk::BufferType& type, size_t elements) {
  auto p = std::make_unique<Placed>();
  p->tensor.type = bk::DType::F32;
  p->tensor.ne = {static_cast<int64_t>(elements), 1, 1, 1};
  p->tensor.nb = bk::packed_strides(bk::DType::F32, p->tensor.ne);
  p->buffer = type.alloc(type.alloc_size(p->tensor));
  p->buffer->place_tensor(p->tensor, 0);
  return p;
}

void fill_random(float* data, size_t n, uint64_t seed) {
  bk::verify::SplitMix64 rng(seed);  // never zero, so that a transfer that writes nothing is caught
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<float>(rng.signed_uniform(0.1, 1.0));
}

// Host memory for a transfer: pageable (a vector) or from the device's host buffer type.
struct HostMemory {
  std::vector<float> pageable;
  std::unique_ptr<Placed> pinned;
  float* data = nullptr;
};

HostMemory host_memory(bk::Device& device, size_t n, bool pinned) {
  HostMemory h;
  if (pinned) {
    bk::BufferType* type = device.host_buffer_type();
    if (type == nullptr) {
      throw bk::Error(
          bk::ErrorCode::unsupported,
          device.name() + " has no host (pinned) buffer type; pageable transfers are the only kind");
    }
    h.pinned = place(*type, n);
    h.data = static_cast<float*>(h.pinned->tensor.data);
  } else {
    h.pageable.resize(n);
    h.data = h.pageable.data();
  }
  return h;
}

std::string compare(const float* got, const float* want, size_t n) {
  if (std::memcmp(got, want, n * sizeof(float)) == 0) return {};
  for (size_t i = 0; i < n; ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0)
      return fmt::format("data corrupted: element {} is {} after the transfer, {} before", i, got[i],
                         want[i]);
  }
  return {};
}

}  // namespace

BenchResult run_transfer_test(const BenchTest& test, DeviceContext& ctx) {
  BenchResult result = result_for(test);
  return guarded(result, [&] {
    const size_t n = static_cast<size_t>(test.size * test.size);
    const size_t bytes = n * sizeof(float);
    bk::Backend& be = ctx.backend;
    std::unique_ptr<Placed> dev = place(ctx.device.buffer_type(), n);
    std::vector<float> want(n);
    fill_random(want.data(), n, 7);
    const auto to_gbps = [](double b) { return [b](double s) { return b / s / 1e9; }; };
    std::string wrong;
    if (test.op == "d2d") {
      std::unique_ptr<Placed> dst = place(ctx.device.buffer_type(), n);
      dev->buffer->set_tensor(dev->tensor, want.data(), 0, bytes);
      if (!dst->buffer->copy_tensor(dev->tensor, dst->tensor))
        throw bk::Error(bk::ErrorCode::unsupported,
                        ctx.device.name() + " cannot copy between its own buffers");
      result.bytes = 2.0 * static_cast<double>(bytes);  // read + written, like the element-wise tests
      measure_into(
          result,
          [&] {
            const double t0 = bk::now_seconds();
            dst->buffer->copy_tensor(dev->tensor, dst->tensor);
            be.synchronize();
            return bk::now_seconds() - t0;
          },
          ctx.timing, to_gbps(result.bytes));
      std::vector<float> got(n);
      dst->buffer->get_tensor(dst->tensor, got.data(), 0, bytes);
      wrong = compare(got.data(), want.data(), n);
    } else {
      const bool up = test.op.starts_with("h2d");
      HostMemory host = host_memory(ctx.device, n, test.op.ends_with("_pinned"));
      result.bytes = static_cast<double>(bytes);
      if (up)
        std::memcpy(host.data, want.data(), bytes);
      else
        dev->buffer->set_tensor(dev->tensor, want.data(), 0, bytes);
      measure_into(
          result,
          [&] {
            const double t0 = bk::now_seconds();
            if (up)
              be.set_tensor_async(dev->tensor, host.data, 0, bytes);
            else
              be.get_tensor_async(dev->tensor, host.data, 0, bytes);
            be.synchronize();
            return bk::now_seconds() - t0;
          },
          ctx.timing, to_gbps(result.bytes));
      std::vector<float> got(n);
      if (up)
        dev->buffer->get_tensor(dev->tensor, got.data(), 0, bytes);
      else
        std::memcpy(got.data(), host.data, bytes);
      wrong = compare(got.data(), want.data(), n);
    }
    if (!wrong.empty()) fail_check(result, wrong);
  });
}

BenchResult run_latency_test(const BenchTest& test, DeviceContext& ctx) {
  BenchResult result = result_for(test);
  const auto to_us = [](double s) { return s * 1e6; };
  return guarded(result, [&] {
    bk::Backend& be = ctx.backend;
    if (test.op == "event_latency") {
      if (!ctx.device.caps().events)
        throw bk::Error(bk::ErrorCode::unsupported,
                        ctx.device.name() + " has no events (caps.events is false)");
      std::unique_ptr<bk::Event> event = ctx.device.create_event();
      measure_into(
          result,
          [&] {
            const double t0 = bk::now_seconds();
            event->record(be);
            event->synchronize();
            return bk::now_seconds() - t0;
          },
          ctx.timing, to_us);
      return;
    }
    // One small add, end to end: submit, compute, wait.
    bk::GraphBuilder g;
    bk::Tensor& a = g.input(bk::DType::F32, {256, 1, 1, 1}, "a");
    bk::Tensor& b = g.input(bk::DType::F32, {256, 1, 1, 1}, "b");
    bk::Tensor& r = bk::ops::add(g, a, b);
    bk::Graph graph = g.build({&r});
    if (!ctx.device.supports_op(r))
      throw bk::Error(bk::ErrorCode::unsupported, ctx.device.unsupported_reason(r));
    bk::GraphAllocator alloc;
    alloc.alloc_graph(graph, ctx.device.buffer_type());
    std::vector<float> av(256), bv(256), got(256);
    fill_random(av.data(), 256, 3);
    fill_random(bv.data(), 256, 4);
    a.buffer->set_tensor(a, av.data(), 0, sizeof(float) * 256);
    b.buffer->set_tensor(b, bv.data(), 0, sizeof(float) * 256);
    measure_into(
        result,
        [&] {
          const double t0 = bk::now_seconds();
          be.compute(graph);
          be.synchronize();
          return bk::now_seconds() - t0;
        },
        ctx.timing, to_us);
    r.buffer->get_tensor(r, got.data(), 0, sizeof(float) * 256);
    for (size_t i = 0; i < 256; ++i) {
      if (got[i] != av[i] + bv[i]) {
        fail_check(result, fmt::format("wrong result: element {} = {}, want {}", i, got[i], av[i] + bv[i]));
        return;
      }
    }
  });
}

BenchResult run_peak_test(const BenchTest& test, DeviceContext& ctx) {
  BenchResult result = result_for(test);
  return guarded(result, [&] {
    const bk::DType type = *bk::dtype_from_name(test.dtype);
    // Grow the kernel until one run takes 100 ms, so launch and synchronisation costs are noise.
    // The first run is not a guide: it pays for compiling the kernel (lavapipe's JIT, a CUDA
    // module's load), and sized on it the probe measured a third of the device's own mul_mat.
    constexpr double kRunSeconds = 0.1;
    double flops = 1e7, performed = 0, seconds = 0;
    ctx.backend.run_peak_kernel(type, flops);  // the warm-up
    while (true) {
      const double t0 = bk::now_seconds();
      performed = ctx.backend.run_peak_kernel(type, flops);
      seconds = bk::now_seconds() - t0;
      if (seconds >= kRunSeconds || flops >= 1e14) break;
      flops *= seconds > 0 ? std::min(100.0, 1.2 * kRunSeconds / seconds) : 100.0;
    }
    if (!(performed > 0)) throw bk::Error(bk::ErrorCode::device_error, "the peak kernel reported no work");
    result.flops = performed;
    measure_into(
        result,
        [&] {
          const double t0 = bk::now_seconds();
          performed = ctx.backend.run_peak_kernel(type, flops);
          return bk::now_seconds() - t0;
        },
        ctx.timing, [&performed](double s) { return performed / s / 1e9; });
  });
}

}  // namespace bkctl
