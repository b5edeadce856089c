// SPDX-License-Identifier: MIT
#include "sched/sched_state.h"

#include "bk/tensor.h"

namespace bk {

void SchedState::prepare(const SchedGraph& g, std::span<const SchedBackend> b, const SchedOptions& o,
                         std::span<const TensorPin> pins, std::span<const TensorHome> homes) {
  graph = &g;
  backends = b;
  options = o;
  const auto n = static_cast<size_t>(g.size());
  fixed.assign(n, nullptr);
  pin.assign(n, -1);
  decision.assign(n, Decision{});
  support_.assign(n * b.size(), -1);
  reads_compute_.resize(b.size() * b.size());
  for (size_t r = 0; r < b.size(); ++r) {
    for (size_t c = 0; c < b.size(); ++c) {
      reads_compute_[r * b.size() + c] = r == c || b[r].device->supports_buffer_type(*b[c].compute_type);
    }
  }
  for (const auto& [tensor, type] : homes) {
    if (const int32_t id = g.find(tensor); id >= 0) fixed[static_cast<size_t>(id)] = type;
  }
  for (int32_t id = 0; id < g.size(); ++id) {
    const Tensor& t = g.tensor(id);
    const auto i = static_cast<size_t>(id);
    if (t.buffer != nullptr) fixed[i] = &t.buffer->type();
    // Storage comes before its views in id order, so its answer is already known.
    if (const int32_t s = g.storage(id); s != id && fixed[static_cast<size_t>(s)] != nullptr) {
      fixed[i] = fixed[static_cast<size_t>(s)];
    }
  }
  for (const auto& [tensor, backend] : pins) {
    if (const int32_t id = g.find(tensor); id >= 0)
      pin[static_cast<size_t>(id)] = static_cast<int16_t>(backend);
  }
}

bool SchedState::supports(int32_t id, int b) const {
  int8_t& known = support_[static_cast<size_t>(id) * backends.size() + static_cast<size_t>(b)];
  if (known < 0) known = device(b).supports_op(graph->tensor(id)) ? 1 : 0;
  return known == 1;
}

bool SchedState::readable(int b, int32_t id) const {
  const int32_t s = graph->storage(id);
  if (const BufferType* type = fixed[static_cast<size_t>(s)]) return device(b).supports_buffer_type(*type);
  const int c = backend(s);
  if (c < 0) return false;
  return reads_compute_[static_cast<size_t>(b) * backends.size() + static_cast<size_t>(c)] != 0;
}

int SchedState::backend_of_type(const BufferType& type) const {
  for (int b = 0; b < count(); ++b) {
    if (&device(b) == &type.device()) return b;
  }
  for (int b = 0; b < count(); ++b) {
    if (device(b).supports_buffer_type(type)) return b;
  }
  return -1;
}

}  // namespace bk
