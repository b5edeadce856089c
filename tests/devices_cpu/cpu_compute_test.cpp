// SPDX-License-Identifier: MIT
// CpuBackend::compute as a whole: threads, the abort callback, bad data, the work buffer.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bk/cpu.h"
#include "bk/error.h"
#include "bk/ops.h"
#include "cpu_graph_util.h"
#include "devices/cpu/cpu_backend.h"

namespace bk {
namespace {

using test::cpu_device;
using test::CpuGraph;

// A chain of `length` nodes: r = ((a + b) * b) + b ... over [n] floats.
struct Chain {
  GraphBuilder g;
  Tensor* a;
  Tensor* b;
  std::vector<Tensor*> nodes;
  Graph graph;

  Chain(int length, int64_t n) {
    a = &g.input(DType::F32, {n, 1, 1, 1}, "a");
    b = &g.input(DType::F32, {n, 1, 1, 1}, "b");
    Tensor* cur = a;
    for (int i = 0; i < length; ++i) {
      cur = i % 2 == 0 ? &ops::add(g, *cur, *b) : &ops::scale(g, *cur, 0.5f);
      nodes.push_back(cur);
    }
    graph = g.build({cur});
  }
};

void fill(Tensor& t, double base) {
  for (int64_t i = 0; i < t.nelements(); ++i)
    CpuGraph::set(t, i, base + 0.001 * static_cast<double>(i % 977));
}

TEST(CpuCompute, ResultsDoNotDependOnTheThreadCount) {
  std::vector<float> first;
  for (int threads : {1, 2, 3, 5}) {
    GraphBuilder g;
    Tensor& w = g.weight(DType::BF16, {200, 150, 1, 1}, "w");
    Tensor& x = g.input(DType::F32, {200, 40, 1, 1}, "x");
    Tensor& r = ops::gelu(g, ops::mul_mat(g, w, x));
    Graph graph = g.build({&r});
    CpuGraph placed(graph);
    fill(w, -0.1);
    fill(x, 0.2);
    auto backend = cpu_device().init_backend();
    cpu_set_threads(*backend, threads);
    backend->compute(graph);
    std::vector<float> got;
    for (int64_t i = 0; i < r.nelements(); ++i) got.push_back(CpuGraph::get(r, i));
    if (first.empty()) {
      first = got;
    } else {
      EXPECT_EQ(got, first) << threads << " threads";
    }
  }
}

TEST(CpuCompute, ThreadCountCanChangeBetweenGraphs) {
  Chain c(4, 100000);
  CpuGraph placed(c.graph);
  fill(*c.a, 1.0);
  fill(*c.b, 2.0);
  auto backend = cpu_device().init_backend();
  auto& cpu = dynamic_cast<CpuBackend&>(*backend);
  cpu.set_threads(1);
  backend->compute(c.graph);
  const float one = CpuGraph::get(*c.nodes.back(), 12345);
  cpu.set_threads(4);
  EXPECT_EQ(cpu.threads(), 4);
  backend->compute(c.graph);
  EXPECT_EQ(CpuGraph::get(*c.nodes.back(), 12345), one);
  EXPECT_TRUE(std::isfinite(one));
}

TEST(CpuCompute, AbortCallbackStopsTheGraphWithATimeoutError) {
  Chain c(10, 64);
  CpuGraph placed(c.graph);  // poisons every node with NaN
  fill(*c.a, 1.0);
  fill(*c.b, 2.0);
  auto backend = cpu_device().init_backend();
  auto& cpu = dynamic_cast<CpuBackend&>(*backend);
  int asked = 0;
  cpu.set_abort_callback([&] { return ++asked > 3; });
  try {
    backend->compute(c.graph);
    ADD_FAILURE() << "the abort callback did not stop compute";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::timeout);
    EXPECT_NE(std::string(e.what()).find("aborted"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::isfinite(CpuGraph::get(*c.nodes.front(), 0))) << "the first node ran";
  EXPECT_TRUE(std::isnan(CpuGraph::get(*c.nodes.back(), 0))) << "the last node must not have run";
  // Without the callback the same backend computes everything.
  cpu.set_abort_callback({});
  backend->compute(c.graph);
  EXPECT_TRUE(std::isfinite(CpuGraph::get(*c.nodes.back(), 0)));
}

TEST(CpuCompute, AbortCallbackThroughTheRegEntryPoint) {
  Chain c(3, 64);
  CpuGraph placed(c.graph);
  fill(*c.a, 1.0);
  fill(*c.b, 2.0);
  auto backend = cpu_device().init_backend();
  auto set_abort = reinterpret_cast<CpuSetAbortCallbackFn>(cpu_reg().proc_address("set_abort_callback"));
  ASSERT_NE(set_abort, nullptr);
  set_abort(
      *backend, [](void*) { return true; }, nullptr);
  EXPECT_THROW(backend->compute(c.graph), Error);
  set_abort(*backend, nullptr, nullptr);
  EXPECT_NO_THROW(backend->compute(c.graph));
}

TEST(CpuCompute, AbortInsideALargeNodeStopsBetweenTasks) {
  Chain c(1, 8 << 20);  // one add over 8M floats: many tasks
  CpuGraph placed(c.graph);
  fill(*c.a, 1.0);
  fill(*c.b, 2.0);
  auto backend = cpu_device().init_backend();
  auto& cpu = dynamic_cast<CpuBackend&>(*backend);
  cpu.set_threads(1);
  int asked = 0;
  cpu.set_abort_callback([&] { return ++asked > 2; });  // before the node, then one task
  EXPECT_THROW(backend->compute(c.graph), Error);
  EXPECT_TRUE(std::isnan(CpuGraph::get(*c.nodes.back(), (8 << 20) - 1))) << "the last task ran";
}

TEST(CpuCompute, GetRowsIndexOutOfRangeIsAnError) {
  GraphBuilder g;
  Tensor& table = g.weight(DType::F32, {4, 3, 1, 1}, "table");
  Tensor& ids = g.input(DType::I32, {2, 1, 1, 1}, "ids");
  Tensor& r = ops::get_rows(g, table, ids);
  Graph graph = g.build({&r});
  CpuGraph placed(graph);
  fill(table, 1.0);
  CpuGraph::set(ids, 0, 1);
  CpuGraph::set(ids, 1, 3);
  auto backend = cpu_device().init_backend();
  try {
    backend->compute(graph);
    ADD_FAILURE() << "index 3 of 3 rows accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("index 3"), std::string::npos) << e.what();
  }
}

TEST(CpuCompute, UnallocatedNodeIsAnError) {
  GraphBuilder g;
  Tensor& a = g.input(DType::F32, {4, 1, 1, 1}, "a");
  Tensor& r = ops::silu(g, a);
  Graph graph = g.build({&r});
  auto backend = cpu_device().init_backend();
  EXPECT_THROW(backend->compute(graph), Error);
}

TEST(CpuDevice, SupportsEveryOpInEveryFloatDtype) {
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    GraphBuilder g;
    Tensor& a = g.input(t, {8, 4, 2, 1}, "a");
    Tensor& pos = g.input(DType::I32, {2, 1, 1, 1}, "pos");
    Tensor& ids = g.input(DType::I32, {3, 2, 1, 1}, "ids");
    Tensor& x = g.input(DType::F32, {8, 5, 2, 1}, "x");
    Tensor& mask = g.input(DType::F32, {8, 4, 1, 1}, "mask");
    std::vector<Tensor*> nodes{&ops::add(g, a, a),
                               &ops::mul(g, a, a),
                               &ops::scale(g, a, 2),
                               &ops::silu(g, a),
                               &ops::gelu(g, a),
                               &ops::mul_mat(g, a, x),
                               &ops::rms_norm(g, a, 1e-5f),
                               &ops::soft_max(g, a, &mask, 1),
                               &ops::rope(g, a, pos, 8, RopeMode::neox, 1e4f),
                               &ops::get_rows(g, a, ids),
                               &ops::cast(g, a, DType::F16),
                               &ops::cont(g, ops::transpose(g, a))};
    for (const Tensor* n : nodes) {
      EXPECT_TRUE(cpu_device().supports_op(*n))
          << op_name(n->op) << " " << dtype_name(t) << ": " << cpu_device().unsupported_reason(*n);
      EXPECT_EQ(cpu_device().unsupported_reason(*n), "");
    }
  }
}

}  // namespace
}  // namespace bk
