// SPDX-License-Identifier: MIT
#pragma once
// Simulated devices for the scheduler tests, built from a BK_SIM_DEVICES-style config without
// touching the environment, plus the real CPU. Backends are created once per device name.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bk/cpu.h"
#include "bk/device.h"
#include "bk/graph.h"
#include "bk/ops.h"
#include "devices/sim/sim_device.h"

namespace bk::test {

class SimDevices {
 public:
  explicit SimDevices(std::string_view config) : reg_(make_sim_reg(config)) {}

  Device& device(std::string_view name) {
    if (name == "CPU") return *cpu_reg().devices().front();
    for (Device* d : reg_->devices()) {
      if (d->name() == name) return *d;
    }
    ADD_FAILURE() << "no simulated device " << name;
    return *cpu_reg().devices().front();
  }

  Backend& backend(std::string_view name) {
    auto& slot = backends_[std::string(name)];
    if (!slot) slot = device(name).init_backend();
    return *slot;
  }

  std::vector<Backend*> backends(std::initializer_list<std::string_view> names) {
    std::vector<Backend*> out;
    for (std::string_view n : names) out.push_back(&backend(n));
    return out;
  }

 private:
  std::unique_ptr<BackendReg> reg_;
  std::map<std::string, std::unique_ptr<Backend>> backends_;
};

// Where most placement tests start: x (an F32 input [k, n]), w (a weight [k, m]) and h = w x.
// Tests add their nodes to `g` and build.
struct MatmulStart {
  MatmulStart(int64_t k, int64_t m, int64_t n, DType weight_type = DType::F32)
      : x(g.input(DType::F32, {k, n, 1, 1}, "x")),
        w(g.weight(weight_type, {k, m, 1, 1}, "w")),
        h(ops::mul_mat(g, w, x)) {}

  GraphBuilder g;
  Tensor& x;
  Tensor& w;
  Tensor& h;
};

// The ops of a graph the real CPU cannot run yet, comma-separated; empty when it runs them all.
inline std::string cpu_missing_ops(const Graph& graph) {
  const Device& cpu = *cpu_reg().devices().front();
  std::string missing;
  for (const Tensor* node : graph.nodes()) {
    if (cpu.supports_op(*node)) continue;
    const std::string op(op_name(node->op));
    if (missing.find(op) == std::string::npos) missing += (missing.empty() ? "" : ", ") + op;
  }
  return missing;
}

}  // namespace bk::test

// Skips the test, saying why, when the CPU device reports it cannot run a node of the graph.
#define BK_SKIP_UNLESS_CPU_RUNS(graph)                                                            \
  do {                                                                                            \
    const std::string bk_missing_ = ::bk::test::cpu_missing_ops(graph);                           \
    if (!bk_missing_.empty()) GTEST_SKIP() << "the CPU device does not support: " << bk_missing_; \
  } while (0)
