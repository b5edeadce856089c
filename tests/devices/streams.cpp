// SPDX-License-Identifier: MIT
// Streams (Backend): asynchronous transfers, copies and compute run in submission order, and
// synchronize() makes their results visible; compute refuses what supports_op refuses.
#include <sstream>

#include "bk/ops.h"
#include "contract_util.h"
#include "contracts.h"

namespace bk::contract {
namespace {

constexpr size_t kStreamBytes = kMiB;

std::vector<float> iota_floats(size_t n, float start, float step) {
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = start + step * static_cast<float>(i);
  return out;
}

// Queues a read of all of t into `into` (which must stay alive until synchronize()).
void read_floats(Backend& backend, const Tensor& t, std::vector<float>& into) {
  into.assign(static_cast<size_t>(t.nelements()), 0.0f);
  backend.get_tensor_async(t, into.data(), 0, t.nbytes());
}

// The first node of `graph` the device does not support, or nullptr.
const Tensor* unsupported_node(const Device& device, const Graph& graph) {
  for (const Tensor* node : graph.nodes()) {
    if (!device.supports_op(*node)) return node;
  }
  return nullptr;
}

}  // namespace

// Backend::copy_tensor_async, where it returns true, gives the right bytes after synchronize();
// where it returns false the destination is untouched; different sizes never copy. A stream that
// copies nothing (the CPU's, a synchronous simulated one) skips, naming what it refused.
void copy_async(Device& device) {
  BufferType& type = device.buffer_type();
  auto backend = device.init_backend();
  auto second = device.init_backend();
  auto cpu_backend = cpu().init_backend();
  Placed a = placed(type, kStreamBytes, "a");
  Placed b = placed(type, kStreamBytes, "b");
  Placed c = placed(type, kStreamBytes, "c");
  const std::vector<uint8_t> in = pattern(kStreamBytes, 21);
  a.buffer->set_tensor(a.tensor, in.data(), 0, kStreamBytes);
  b.buffer->clear(0);
  c.buffer->clear(0);
  const std::vector<uint8_t> zeros(kStreamBytes, 0);

  std::ostringstream refused;
  int copied = 0;
  auto check = [&](bool ok, Placed& dst, const std::vector<uint8_t>& expect, const char* what) {
    backend->synchronize();
    if (ok) {
      ++copied;
    } else {
      refused << " (" << what << ")";
    }
    EXPECT_TRUE(contents(dst.tensor) == (ok ? expect : zeros))
        << what << (ok ? ": wrong bytes" : ": refused, yet wrote");
  };
  check(backend->copy_tensor_async(*backend, a.tensor, b.tensor), b, in, "within one stream");
  check(backend->copy_tensor_async(*second, a.tensor, c.tensor), c, in, "from another stream of the device");
  Placed host = placed(cpu().buffer_type(), kStreamBytes, "host");
  const std::vector<uint8_t> from_host = pattern(kStreamBytes, 22);
  host.buffer->set_tensor(host.tensor, from_host.data(), 0, kStreamBytes);
  b.buffer->clear(0);
  check(backend->copy_tensor_async(*cpu_backend, host.tensor, b.tensor), b, from_host, "from host memory");
  if (BufferType* host_type = device.host_buffer_type()) {
    Placed pinned = placed(*host_type, kStreamBytes, "pinned");
    const std::vector<uint8_t> from_pinned = pattern(kStreamBytes, 26);
    pinned.buffer->set_tensor(pinned.tensor, from_pinned.data(), 0, kStreamBytes);
    b.buffer->clear(0);
    check(backend->copy_tensor_async(*backend, pinned.tensor, b.tensor), b, from_pinned,
          "from the device's host buffer type");
  }

  Placed small = placed(type, kStreamBytes / 2, "small");
  const std::optional<Error> e =
      thrown([&] { EXPECT_FALSE(backend->copy_tensor_async(*backend, a.tensor, small.tensor)); });
  if (e) {
    EXPECT_EQ(e->code(), ErrorCode::invalid_argument) << e->what();
  }
  backend->synchronize();
  if (copied == 0)
    GTEST_SKIP() << device.name() << " copies nothing on its stream; refused:" << refused.str();
}

// Transfers on one stream run in order: a copy reads what the stream wrote before it, not what
// it writes after; reads see every write queued before them.
void stream_order_transfers(Device& device) {
  BufferType& type = device.buffer_type();
  auto backend = device.init_backend();
  Placed a = placed(type, kStreamBytes, "a");
  Placed b = placed(type, kStreamBytes, "b");
  const std::vector<uint8_t> first = pattern(kStreamBytes, 23);
  const std::vector<uint8_t> second = pattern(kStreamBytes, 24);
  const std::vector<uint8_t> third = pattern(1001, 25);
  backend->set_tensor_async(a.tensor, first.data(), 0, kStreamBytes);
  const bool copied = backend->copy_tensor_async(*backend, a.tensor, b.tensor);
  backend->set_tensor_async(a.tensor, second.data(), 0, kStreamBytes);
  backend->set_tensor_async(a.tensor, third.data(), 7, third.size());
  std::vector<uint8_t> got_b(kStreamBytes);
  std::vector<uint8_t> got_a(kStreamBytes - 100);
  if (copied) backend->get_tensor_async(b.tensor, got_b.data(), 0, kStreamBytes);
  backend->get_tensor_async(a.tensor, got_a.data(), 100, got_a.size());
  backend->synchronize();

  std::vector<uint8_t> expect_a = second;
  std::copy(third.begin(), third.end(), expect_a.begin() + 7);
  EXPECT_TRUE(std::equal(got_a.begin(), got_a.end(), expect_a.begin() + 100))
      << "reads see the writes before them";
  EXPECT_TRUE(contents(a.tensor) == expect_a);
  if (copied) {
    EXPECT_TRUE(got_b == first) << "the copy read what was written before it, not after";
  }
}

// set, compute a node that reads it, get: on one stream, twice without waiting in between, each
// get sees its own compute. Needs f32 add; a device without it skips with its reason.
void stream_order_compute(Device& device) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {1024, 3, 1, 1}, "x");
  Tensor& y = g.input(DType::F32, {1024, 3, 1, 1}, "y");
  Tensor& sum = ops::add(g, x, y);
  sum.name = "sum";
  Graph graph = g.build({&sum});
  if (const Tensor* node = unsupported_node(device, graph)) {
    GTEST_SKIP() << "needs f32 add: " << device.unsupported_reason(*node);
  }
  auto buffer = place_graph(device.buffer_type(), graph);
  auto backend = device.init_backend();
  const size_t n = static_cast<size_t>(x.nelements());
  const std::vector<float> x1 = iota_floats(n, 1.0f, 1.0f);
  const std::vector<float> x2 = iota_floats(n, -3.0f, 0.5f);
  const std::vector<float> ys = iota_floats(n, 1000.0f, -0.25f);
  std::vector<float> out1;
  std::vector<float> out2;
  backend->set_tensor_async(y, ys.data(), 0, y.nbytes());
  backend->set_tensor_async(x, x1.data(), 0, x.nbytes());
  backend->compute(graph);
  read_floats(*backend, sum, out1);
  backend->set_tensor_async(x, x2.data(), 0, x.nbytes());
  backend->compute(graph);
  read_floats(*backend, sum, out2);
  backend->synchronize();
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(out1[i], x1[i] + ys[i]) << "first compute, element " << i;
    ASSERT_EQ(out2[i], x2[i] + ys[i]) << "second compute, element " << i;
  }
}

// A graph of a leaf and its views (reshape, permute, transpose) computes where the device
// supports them: views alias their source, there is nothing to run.
void compute_views(Device& device) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {8, 4, 1, 1}, "x");
  Tensor& flat = ops::reshape(g, x, {32, 1, 1, 1});
  Tensor& cube = ops::reshape(g, flat, {4, 2, 4, 1});
  Tensor& turned = ops::permute(g, cube, {2, 0, 1, 3});
  Tensor& swapped = ops::transpose(g, x);
  Graph graph = g.build({&turned, &swapped});
  if (const Tensor* node = unsupported_node(device, graph)) {
    GTEST_SKIP() << "views are not supported: " << device.unsupported_reason(*node);
  }
  auto buffer = place_graph(device.buffer_type(), graph);
  const std::vector<float> values = iota_floats(32, 0.25f, 1.0f);
  buffer->set_tensor(x, values.data(), 0, x.nbytes());
  auto backend = device.init_backend();
  backend->compute(graph);
  backend->synchronize();
  for (const Tensor* view : {&flat, &cube, &turned, &swapped}) EXPECT_EQ(view->data, x.data) << view->name;
  std::vector<float> back(32);
  buffer->get_tensor(flat, back.data(), 0, flat.nbytes());
  EXPECT_EQ(back, values);
}

// supports_op and compute agree: a node the device does not support has a reason, and computing
// it throws Error(unsupported) naming the node; a supported node has no reason.
void compute_refuses_unsupported(Device& device) {
  GraphBuilder g;
  Tensor& ix = g.input(DType::I32, {8, 4, 1, 1}, "ix");
  Tensor& w = g.weight(DType::I32, {8, 3, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {8, 4, 1, 1}, "x");
  // Built by hand: the op builders refuse integer arithmetic, and so do most devices.
  Tensor& isum = g.node(Op::add, DType::I32, {8, 4, 1, 1}, {&ix, &ix});
  isum.name = "isum";
  Tensor& imm = g.node(Op::mul_mat, DType::F32, {3, 4, 1, 1}, {&w, &x});
  imm.name = "imm";
  Tensor& fsum = ops::add(g, x, x);
  fsum.name = "fsum";
  Tensor* refused = nullptr;
  for (Tensor* node : {&isum, &imm, &fsum}) {
    const std::string reason = device.unsupported_reason(*node);
    EXPECT_EQ(reason.empty(), device.supports_op(*node)) << node->name << ": '" << reason << "'";
    if (refused == nullptr && !device.supports_op(*node)) refused = node;
  }
  if (refused == nullptr) GTEST_SKIP() << device.name() << " supports every candidate node (isum, imm, fsum)";
  Graph graph = g.build({refused});
  auto buffer = place_graph(device.buffer_type(), graph);
  auto backend = device.init_backend();
  expect_error([&] { backend->compute(graph); }, ErrorCode::unsupported, "compute " + refused->name,
               {"'" + refused->name + "'"});
  backend->synchronize();
}

}  // namespace bk::contract
