// SPDX-License-Identifier: MIT
// What only the CPU's stream does: its threads, and what its refusals say. Streams in general
// (transfers, views, refusing unsupported nodes) are device contracts (tests/devices).
#include "devices/cpu/cpu_backend.h"

#include <gtest/gtest.h>

#include <string>

#include "bk/cpu.h"
#include "bk/error.h"
#include "bk/graph.h"
#include "cpu_graph_util.h"
#include "devices/cpu/cpu_topology.h"

namespace bk {
namespace {

// Some other device's stream: a test double for cpu_set_threads' type check.
class OtherBackend final : public Backend {
 public:
  std::string name() const override { return "Other0"; }
  Device& device() const override { return test::cpu_device(); }
  void compute(Graph&) override {}
};

TEST(CpuBackend, StartsWithTheDefaultThreadCount) {
  auto backend = test::cpu_device().init_backend();
  ASSERT_NE(backend, nullptr);
  auto* concrete = dynamic_cast<CpuBackend*>(backend.get());
  ASSERT_NE(concrete, nullptr);
  EXPECT_EQ(concrete->threads(), cpu_default_threads());
  EXPECT_GE(concrete->threads(), 1);
}

TEST(CpuBackend, SetThreadsThroughTheRegEntryPoint) {
  auto backend = test::cpu_device().init_backend();
  auto set_threads = reinterpret_cast<CpuSetThreadsFn>(cpu_reg().proc_address("set_threads"));
  ASSERT_NE(set_threads, nullptr);
  set_threads(*backend, 3);
  EXPECT_EQ(dynamic_cast<CpuBackend&>(*backend).threads(), 3);
  try {
    set_threads(*backend, 0);
    ADD_FAILURE() << "0 threads accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("got 0"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dynamic_cast<CpuBackend&>(*backend).threads(), 3);
  OtherBackend other;
  EXPECT_THROW(set_threads(other, 2), Error);
}

TEST(CpuBackend, NodeTheKernelsCannotComputeIsUnsupportedNamingOpAndNode) {
  // A hand-made node with i32 weights: the builder would refuse it, the kernels have no loop.
  GraphBuilder b;
  Tensor& w = b.weight(DType::I32, {4, 3, 1, 1}, "w");
  Tensor& x = b.input(DType::F32, {4, 6, 1, 1}, "x");
  Tensor& m = b.node(Op::mul_mat, DType::F32, {3, 6, 1, 1}, {&w, &x});
  m.name = "logits";
  Graph g = b.build({&m});
  EXPECT_FALSE(test::cpu_device().supports_op(m));
  EXPECT_NE(test::cpu_device().unsupported_reason(m).find("i32"), std::string::npos)
      << test::cpu_device().unsupported_reason(m);
  auto backend = test::cpu_device().init_backend();
  try {
    backend->compute(g);
    ADD_FAILURE() << "mul_mat with i32 weights computed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::unsupported);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("mul_mat"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'logits'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("CPU"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace bk
