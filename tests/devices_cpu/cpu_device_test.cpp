// SPDX-License-Identifier: MIT
// What only the CPU device is: its reg, properties, capabilities, op support and describe().
// That it keeps its capabilities' promises is a device contract (tests/devices).
#include "devices/cpu/cpu_device.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bk/cpu.h"
#include "bk/error.h"
#include "bk/graph.h"
#include "cpu_graph_util.h"
#include "devices/cpu/cpu_features.h"
#include "devices/cpu/cpu_info.h"
#include "devices/cpu/cpu_topology.h"
#include "probe/device_details.h"

namespace bk {
namespace {

// A device buffer type the CPU cannot address: a test double for supports_buffer_type.
class DeviceOnlyBufferType final : public BufferType {
 public:
  std::string name() const override { return "Fake"; }
  Device& device() const override { return test::cpu_device(); }
  std::unique_ptr<Buffer> alloc(size_t) override { return nullptr; }
  size_t alignment() const override { return 256; }
  bool is_host() const override { return false; }
};

TEST(CpuReg, HasExactlyTheCpuDevice) {
  BackendReg& reg = cpu_reg();
  EXPECT_EQ(&reg, &cpu_reg());
  EXPECT_EQ(reg.name(), "CPU");
  ASSERT_EQ(reg.devices().size(), 1u);
  EXPECT_EQ(&reg.devices()[0]->reg(), &reg);
  EXPECT_TRUE(reg.status().empty());
  EXPECT_EQ(reg.proc_address("no_such_entry"), nullptr);
  EXPECT_NE(reg.proc_address("set_threads"), nullptr);
}

TEST(CpuDevice, Properties) {
  Device& dev = test::cpu_device();
  EXPECT_EQ(dev.name(), "CPU");
  EXPECT_EQ(dev.type(), DeviceType::cpu);
  EXPECT_EQ(dev.description(), cpu_brand());
  EXPECT_FALSE(dev.is_simulated());
  const MemoryInfo mem = dev.memory();
  EXPECT_LT(mem.free, mem.total);
}

TEST(CpuDevice, Caps) {
  const DeviceCaps caps = test::cpu_device().caps();
  EXPECT_FALSE(caps.async);
  EXPECT_FALSE(caps.host_buffer);
  EXPECT_TRUE(caps.buffer_from_host_ptr);
  EXPECT_FALSE(caps.events);
  EXPECT_FALSE(caps.event_timing);
}

TEST(CpuDevice, SupportsHostBufferTypesOnly) {
  EXPECT_TRUE(test::cpu_device().supports_buffer_type(test::cpu_device().buffer_type()));
  DeviceOnlyBufferType device_only;
  EXPECT_FALSE(test::cpu_device().supports_buffer_type(device_only));
}

TEST(CpuDevice, SupportsLeafsViewsAndKernelsButNotBrokenNodes) {
  GraphBuilder b;
  Tensor& a = b.input(DType::F32, {4, 6, 1, 1}, "a");
  Tensor& w = b.weight(DType::F32, {4, 3, 1, 1}, "w");
  Tensor& r = b.view_node(Op::reshape, a, {24, 1, 1, 1}, packed_strides(DType::F32, {24, 1, 1, 1}), 0);
  Tensor& t = b.view_node(Op::transpose, a, {6, 4, 1, 1}, {a.nb[1], a.nb[0], a.nb[2], a.nb[3]}, 0);
  Tensor& m = b.node(Op::mul_mat, DType::F32, {3, 6, 1, 1}, {&w, &a});
  EXPECT_TRUE(test::cpu_device().supports_op(a));
  EXPECT_TRUE(test::cpu_device().supports_op(w));
  EXPECT_TRUE(test::cpu_device().supports_op(r));
  EXPECT_TRUE(test::cpu_device().supports_op(t));
  EXPECT_TRUE(test::cpu_device().supports_op(m)) << test::cpu_device().unsupported_reason(m);
  EXPECT_FALSE(test::cpu_device().offload_op(m));
  // K of w (4) and of x (5) differ: a node the builder would refuse.
  Tensor& x5 = b.input(DType::F32, {5, 6, 1, 1}, "x5");
  Tensor& bad = b.node(Op::mul_mat, DType::F32, {3, 6, 1, 1}, {&w, &x5});
  EXPECT_FALSE(test::cpu_device().supports_op(bad));
  EXPECT_NE(test::cpu_device().unsupported_reason(bad).find("shapes do not match"), std::string::npos)
      << test::cpu_device().unsupported_reason(bad);
}

// supports_op checks the rules without building messages; unsupported_reason builds them. Both
// read the same rules, so each node below (one broken rule each, then valid ones) must get the
// same answer from both.
TEST(CpuDevice, SupportsOpAgreesWithTheReasonForEveryRule) {
  GraphBuilder b;
  Tensor& f = b.input(DType::F32, {32, 4, 1, 1}, "f");
  Tensor& h = b.input(DType::F16, {32, 4, 1, 1}, "h");
  Tensor& i = b.input(DType::I32, {32, 4, 1, 1}, "i");
  Tensor& odd = b.input(DType::F32, {3, 4, 1, 1}, "odd");
  Tensor& q = b.weight(DType::Q8_0, {32, 4, 1, 1}, "q");
  Tensor& qt = b.view_node(Op::transpose, q, {4, 32, 1, 1}, {q.nb[1], q.nb[0], q.nb[2], q.nb[3]}, 0);
  Tensor& pos = b.input(DType::I32, {1, 1, 1, 1}, "pos");
  const std::vector<Tensor*> broken = {
      &b.node(Op::add, DType::I32, {32, 4, 1, 1}, {&i, &i}),         // a not float
      &b.node(Op::add, DType::F32, {32, 4, 1, 1}, {&h, &f}),         // result dtype differs from a
      &b.node(Op::mul, DType::F32, {32, 4, 1, 1}, {&f, &i}),         // b not float
      &b.node(Op::add, DType::F32, {32, 4, 1, 1}, {&f, &odd}),       // b does not broadcast
      &b.node(Op::scale, DType::F32, {32, 2, 1, 1}, {&f}),           // shape differs
      &b.node(Op::mul_mat, DType::F32, {32, 4, 1, 1}, {&qt, &f}),    // quantized, not contiguous
      &b.node(Op::mul_mat, DType::F32, {4, 4, 1, 1}, {&f, &h}),      // x not f32
      &b.node(Op::mul_mat, DType::F32, {4, 5, 1, 1}, {&f, &f}),      // result shape
      &b.node(Op::mul_mat, DType::F16, {4, 4, 1, 1}, {&f, &f}),      // result not f32
      &b.node(Op::soft_max, DType::F32, {32, 4, 1, 1}, {&f, &h}),    // mask not f32
      &b.node(Op::soft_max, DType::F32, {32, 4, 1, 1}, {&f, &odd}),  // mask does not fit
      &b.node(Op::rope, DType::F32, {32, 4, 1, 1}, {&f, &f}),        // positions not i32
      &b.node(Op::rope, DType::F32, {32, 4, 1, 1}, {&f, &pos}),      // n_dims 0
      &b.node(Op::get_rows, DType::F32, {32, 1, 1, 1}, {&f, &f}),    // indices not i32
      &b.node(Op::cpy, DType::F32, {32, 2, 1, 1}, {&f}),             // element counts differ
      &b.node(Op::cpy, DType::F16, {32, 4, 1, 1}, {&i}),             // no i32 -> f16 conversion
      &b.node(Op::add, DType::F32, {32, 4, 1, 1}, {&f}),             // a source is missing
  };
  for (const Tensor* node : broken) {
    const std::string why = test::cpu_device().unsupported_reason(*node);
    EXPECT_FALSE(why.empty()) << op_name(node->op) << " " << node->shape_string();
    EXPECT_FALSE(test::cpu_device().supports_op(*node)) << why;
  }
  const std::vector<Tensor*> valid = {
      &f,
      &qt,
      &b.node(Op::add, DType::F32, {32, 4, 1, 1}, {&f, &f}),
      &b.node(Op::mul_mat, DType::F32, {4, 4, 1, 1}, {&q, &f}),
      &b.node(Op::soft_max, DType::F32, {32, 4, 1, 1}, {&f, &f}),
      &b.node(Op::cpy, DType::F16, {32, 4, 1, 1}, {&f}),
      &b.node(Op::get_rows, DType::F32, {32, 1, 1, 1}, {&f, &pos}),
  };
  for (const Tensor* node : valid) {
    EXPECT_TRUE(test::cpu_device().supports_op(*node)) << test::cpu_device().unsupported_reason(*node);
    EXPECT_TRUE(test::cpu_device().unsupported_reason(*node).empty());
  }
}

TEST(CpuDevice, DescribeWritesBrandTopologyAndFeatures) {
  const nlohmann::json out = device_details(test::cpu_device());
  EXPECT_EQ(out.at("brand"), cpu_brand());
  EXPECT_EQ(out.at("arch"), cpu_features().arch);
  EXPECT_EQ(out.at("isa_features"), nlohmann::json(cpu_features().names));
  EXPECT_EQ(out.at("default_threads"), cpu_default_threads());
  const CpuTopology& topo = cpu_topology();
  const nlohmann::json& t = out.at("topology");
  EXPECT_EQ(t.at("loaded"), topo.loaded);
  EXPECT_EQ(t.at("packages"), topo.packages);
  EXPECT_EQ(t.at("cores"), topo.cores);
  EXPECT_EQ(t.at("pus"), topo.pus);
  EXPECT_EQ(t.at("numa_nodes"), topo.numa_nodes);
  ASSERT_EQ(t.at("caches").size(), topo.caches.size());
  for (size_t i = 0; i < topo.caches.size(); ++i) {
    EXPECT_EQ(t["caches"][i].at("name"), topo.caches[i].name);
    EXPECT_EQ(t["caches"][i].at("size"), topo.caches[i].size);
    EXPECT_EQ(t["caches"][i].at("count"), topo.caches[i].count);
    EXPECT_EQ(t["caches"][i].at("level"), topo.caches[i].level);
  }
  EXPECT_EQ(t.contains("reason"), !topo.loaded);
}

}  // namespace
}  // namespace bk
