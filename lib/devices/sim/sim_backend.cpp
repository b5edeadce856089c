// SPDX-License-Identifier: MIT
#include "devices/sim/sim_backend.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <deque>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bk/cpu.h"
#include "bk/error.h"
#include "bk/graph.h"
#include "devices/sim/sim_device.h"

namespace bk {
namespace {

// Memory both sides can memcpy: host buffers and simulated ones.
bool plain_memory(const Tensor& t) {
  return t.buffer != nullptr &&
         (t.buffer->type().is_host() || dynamic_cast<const SimBufferType*>(&t.buffer->type()));
}

// A split as it is when compute() is called: its nodes and their sources copied (one level
// deep, which is what the kernels read), pointing at each other, so that a queued job reads
// nothing the caller may change meanwhile -- the scheduler points sources at split-input copies
// only for the duration of its compute() call. Data pointers are shared, not copied.
struct Snapshot {
  std::deque<Tensor> tensors;
  std::vector<Tensor*> nodes;
};

std::shared_ptr<Snapshot> snapshot(const Graph& graph) {
  auto snap = std::make_shared<Snapshot>();
  std::unordered_map<const Tensor*, Tensor*> copy_of;
  for (const Tensor* node : graph.nodes()) {
    snap->nodes.push_back(&snap->tensors.emplace_back(*node));
    copy_of.emplace(node, snap->nodes.back());
  }
  for (Tensor* node : snap->nodes) {
    for (Tensor*& src : node->src) {
      if (src == nullptr) continue;
      auto [it, fresh] = copy_of.emplace(src, nullptr);
      if (fresh) it->second = &snap->tensors.emplace_back(*src);
      src = it->second;
    }
  }
  return snap;
}

// fault=wrong_results: one element of every f32 node the step computed is off by 1 + |x|. A
// cpy is a view of its destination but writes it, so it is corrupted too.
void corrupt_results(const Graph& graph) {
  for (const Tensor* node : graph.nodes()) {
    const bool writes = node->op != Op::none && (!node->is_view() || node->op == Op::cpy);
    if (!writes || node->type != DType::F32 || node->data == nullptr) continue;
    float* first = static_cast<float*>(node->data);
    *first += 1.0f + std::fabs(*first);
  }
}

}  // namespace

SimBackend::SimBackend(SimDevice& device)
    : device_(&device),
      cpu_(cpu_reg().devices().front()->init_backend()),
      queue_(device.config().async ? std::make_unique<SimQueue>() : nullptr) {}

SimBackend::~SimBackend() = default;

std::string SimBackend::name() const { return device_->name(); }

Device& SimBackend::device() const { return *device_; }

void SimBackend::check_ops(const Graph& graph) const {
  for (const Tensor* node : graph.nodes()) {
    if (!device_->supports_op(*node)) {
      throw Error(ErrorCode::unsupported,
                  fmt::format("node '{}': {}", node->name, device_->unsupported_reason(*node)));
    }
  }
}

void SimBackend::compute(Graph& graph) {
  check_ops(graph);
  const std::string device_name = device_->name();
  const SimDeviceConfig& config = device_->config();
  // onset=DUR: the compute faults and the slowdown wait until this stream has computed that long.
  const auto now = std::chrono::steady_clock::now();
  if (computes_ == 0) first_compute_ = now;
  const bool begun = std::chrono::duration<double>(now - first_compute_).count() >= config.onset_seconds;
  const bool compute_fault = config.fault == SimFault::wrong_results || config.fault == SimFault::hang;
  const SimFault fault = begun || !compute_fault ? config.fault : SimFault::none;
  if (fault == SimFault::hang && !queue_) sim_hang_forever();
  // jitter=N: every other graph is computed N times over, so its time varies N-fold.
  const long long repeats = (computes_++ % 2 == 1 ? config.jitter : 1) * (begun ? config.slow : 1);
  auto run = [cpu = cpu_.get(), device_name, fault, repeats](Graph& g) {
    if (fault == SimFault::hang) sim_hang_forever();
    try {
      for (long long i = 0; i < repeats; ++i) cpu->compute(g);
      if (fault == SimFault::wrong_results) corrupt_results(g);
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("{} (simulated) runs the CPU's kernels: {}", device_name, e.what()));
    }
  };
  if (!queue_) return run(graph);
  queue_->submit([snap = snapshot(graph), run] {
    Graph g = Graph::borrow(snap->nodes);
    run(g);
  });
}

void SimBackend::set_tensor_async(Tensor& tensor, const void* src, size_t offset, size_t size) {
  synchronize();
  Backend::set_tensor_async(tensor, src, offset, size);
}

void SimBackend::get_tensor_async(const Tensor& tensor, void* dst, size_t offset, size_t size) {
  synchronize();
  Backend::get_tensor_async(tensor, dst, offset, size);
}

bool SimBackend::copy_tensor_async(Backend& src_backend, const Tensor& src, Tensor& dst) {
  if (!queue_ || !plain_memory(src) || !plain_memory(dst)) return false;
  auto* sim_src = dynamic_cast<SimBackend*>(&src_backend);
  if (sim_src == nullptr && src_backend.device().type() != DeviceType::cpu) return false;
  // Refused now, not when the queued copy runs: a caller that is told true relies on the copy.
  if (src.nbytes() != dst.nbytes()) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("copy_tensor_async on {}: '{}' has {} bytes but '{}' has {}", name(), src.name,
                            src.nbytes(), dst.name, dst.nbytes()));
  }
  // The source stream's work so far writes `src`: the copy runs once that is done.
  SimQueue* after = sim_src != nullptr ? sim_src->queue() : nullptr;
  const uint64_t ticket = after != nullptr ? after->submitted() : 0;
  queue_->submit([after, ticket, &src, &dst] {
    if (after != nullptr) after->wait_for(ticket);
    if (!dst.buffer->copy_tensor(src, dst)) {
      throw Error(ErrorCode::device_error, fmt::format("copying '{}' into '{}' failed", src.name, dst.name));
    }
  });
  return true;
}

void SimBackend::synchronize() {
  if (queue_) queue_->drain();
}

void SimBackend::wait(Event& event) {
  auto* sim = dynamic_cast<SimEvent*>(&event);
  if (!queue_ || sim == nullptr) return event.synchronize();
  // The point is taken now: the event may be recorded again before the queued wait runs.
  queue_->submit([queue = sim->queue(), ticket = sim->ticket()] {
    if (queue != nullptr) queue->wait_for(ticket);
  });
}

Device& SimEvent::device() const { return *device_; }

void SimEvent::record(Backend& backend) {
  if (&backend.device() != device_) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("an event of {} cannot record a point in {}'s stream", device_->name(), backend.name()));
  }
  queue_ = static_cast<SimBackend&>(backend).queue();
  ticket_ = queue_ != nullptr ? queue_->submitted() : 0;
}

void SimEvent::synchronize() {
  if (queue_ != nullptr) queue_->wait_for(ticket_);
}

}  // namespace bk
