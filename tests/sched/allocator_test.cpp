// SPDX-License-Identifier: MIT
#include "sched/graph_arenas.h"

#include <gtest/gtest.h>

#include "bk/error.h"
#include "bk/ops.h"
#include "sim_fixture.h"
#include "thrown.h"

namespace bk {
namespace {

constexpr int64_t kN = 256;  // 1 KiB of f32 per tensor: a multiple of every alignment here
constexpr size_t kBytes = kN * 4;

struct Chain {
  GraphBuilder g;
  Tensor* x = &g.input(DType::F32, {kN, 1, 1, 1}, "x");
};

BufferType& cpu_type() { return cpu_reg().devices().front()->buffer_type(); }

TEST(GraphArenas, ReusesMemoryAfterTheLastReader) {
  Chain c;
  Tensor* t = c.x;
  std::vector<Tensor*> norms;
  for (int i = 0; i < 4; ++i) norms.push_back(t = &ops::rms_norm(c.g, *t, 1e-5f));
  Graph graph = c.g.build({t});
  GraphArenas alloc;
  // x (an input, kept) + two blocks that the norms take in turn.
  EXPECT_EQ(alloc.reserve(graph, cpu_type()), 3 * kBytes);
  alloc.alloc_graph(graph, cpu_type());
  EXPECT_EQ(norms[0]->data, norms[2]->data);
  EXPECT_EQ(norms[1]->data, norms[3]->data);
  EXPECT_NE(norms[0]->data, norms[1]->data);
  EXPECT_NE(c.x->data, norms[0]->data);
}

TEST(GraphArenas, ElementwiseNodesRunInPlaceWhenTheirSourceDies) {
  Chain c;
  Tensor& a = ops::silu(c.g, *c.x);  // x is an input: never overwritten
  Tensor& b = ops::silu(c.g, a);
  Tensor& d = ops::scale(c.g, b, 2.0f);
  Graph graph = c.g.build({&d});
  GraphArenas alloc;
  EXPECT_EQ(alloc.reserve(graph, cpu_type()), 2 * kBytes);
  alloc.alloc_graph(graph, cpu_type());
  EXPECT_NE(a.data, c.x->data);
  EXPECT_EQ(a.data, b.data);
  EXPECT_EQ(b.data, d.data);
}

TEST(GraphArenas, NoInPlaceWhileTheSourceIsStillRead) {
  Chain c;
  Tensor& a = ops::rms_norm(c.g, *c.x, 1e-5f);
  Tensor& b = ops::silu(c.g, a);
  Tensor& sum = ops::add(c.g, b, a);  // a is read again after b
  Graph graph = c.g.build({&sum});
  GraphArenas alloc;
  alloc.alloc_graph(graph, cpu_type());
  EXPECT_NE(a.data, b.data);
  EXPECT_TRUE(sum.data == a.data || sum.data == b.data);  // both die at the add
}

TEST(GraphArenas, OutputsAreNeverReused) {
  Chain c;
  Tensor& first = ops::rms_norm(c.g, *c.x, 1e-5f);
  Tensor& second = ops::rms_norm(c.g, first, 1e-5f);
  Tensor& third = ops::rms_norm(c.g, second, 1e-5f);
  Graph graph = c.g.build({&first, &third});
  GraphArenas alloc;
  alloc.alloc_graph(graph, cpu_type());
  EXPECT_NE(third.data, first.data);
  EXPECT_NE(second.data, first.data);
  EXPECT_EQ(alloc.reserve(graph, cpu_type()), 4 * kBytes);
}

TEST(GraphArenas, ViewsShareTheirSourceAndKeepItAlive) {
  Chain c;
  Tensor& a = ops::rms_norm(c.g, *c.x, 1e-5f);
  Tensor& v = ops::reshape(c.g, a, {kN / 2, 2, 1, 1});
  Tensor& b = ops::rms_norm(c.g, a, 1e-5f);  // a's last direct reader...
  Tensor& d = ops::rms_norm(c.g, b, 1e-5f);  // ... so without v, d would take a's block
  Tensor& sum = ops::add(c.g, d, ops::reshape(c.g, v, {kN, 1, 1, 1}));
  Graph graph = c.g.build({&sum});
  GraphArenas alloc;
  alloc.alloc_graph(graph, cpu_type());
  EXPECT_EQ(v.data, a.data);
  EXPECT_EQ(v.buffer, a.buffer);
  EXPECT_NE(d.data, a.data);
  EXPECT_NE(d.data, b.data);
  EXPECT_EQ(sum.data, d.data);  // in place: d dies at the add
}

TEST(GraphArenas, SplitsIntoSeveralBuffersPastTheMaxSize) {
  test::SimDevices sims("gpu0:max_buffer=2KiB,mem=1MiB");
  BufferType& type = sims.device("gpu0").buffer_type();
  Chain c;
  std::vector<Tensor*> outs;
  for (int i = 0; i < 5; ++i) outs.push_back(&ops::rms_norm(c.g, *c.x, 1e-5f));
  Graph graph = c.g.build(outs);
  GraphArenas alloc;
  EXPECT_EQ(alloc.reserve(graph, type), 6 * kBytes);
  alloc.alloc_graph(graph, type);
  const MultiBuffer* buffers = alloc.buffers(0);
  ASSERT_NE(buffers, nullptr);
  EXPECT_EQ(buffers->parts().size(), 3u);
  for (const auto& part : buffers->parts()) EXPECT_LE(part->size(), 2048u);
  EXPECT_EQ(buffers->usage(), BufferUsage::compute);
  for (Tensor* t : outs) EXPECT_EQ(&t->buffer->type(), &type);
}

TEST(GraphArenas, RefusesATensorLargerThanOneBuffer) {
  test::SimDevices sims("gpu0:max_buffer=512,mem=1MiB");
  Chain c;
  Graph graph = c.g.build({&ops::silu(c.g, *c.x)});
  GraphArenas alloc;
  const Error e = test::thrown_by([&] { alloc.reserve(graph, sims.device("gpu0").buffer_type()); },
                                  "a 1 KiB tensor was planned into 512-byte buffers");
  EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
}

TEST(GraphArenas, OutOfMemoryIsAnErrorNotAnAbort) {
  test::SimDevices sims("gpu0:mem=2KiB");
  Chain c;
  Tensor& a = ops::rms_norm(c.g, *c.x, 1e-5f);
  Graph graph = c.g.build({&a, &ops::rms_norm(c.g, a, 1e-5f)});
  GraphArenas alloc;
  const Error e = test::thrown_by([&] { alloc.alloc_graph(graph, sims.device("gpu0").buffer_type()); },
                                  "3 KiB fit into 2 KiB");
  EXPECT_EQ(e.code(), ErrorCode::out_of_memory);
}

TEST(GraphArenas, LeavesPreallocatedTensorsAlone) {
  Chain c;
  Tensor& w = c.g.weight(DType::F32, {kN, 1, 1, 1}, "w");
  Tensor& sum = ops::add(c.g, *c.x, w);
  Graph graph = c.g.build({&sum});
  auto weights = cpu_type().alloc(kBytes);
  weights->place_tensor(w, 0);
  GraphArenas alloc;
  EXPECT_EQ(alloc.reserve(graph, cpu_type()), 2 * kBytes);
  alloc.alloc_graph(graph, cpu_type());
  EXPECT_EQ(w.buffer, weights.get());
  alloc.release_placements();
  EXPECT_EQ(sum.data, nullptr);
  EXPECT_EQ(w.buffer, weights.get());
}

}  // namespace
}  // namespace bk
