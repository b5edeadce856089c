// SPDX-License-Identifier: MIT
// Our side: one-node graphs on the CPU backend, allocated once and computed repeatedly.
#include <memory>
#include <random>

#include "bench_common.h"
#include "bk/cpu.h"
#include "bk/graph.h"
#include "bk/ops.h"
#include "bk/quant.h"
#include "devices/cpu/cpu_backend.h"

namespace bkbench {
namespace {

bk::Device& cpu() { return *bk::cpu_reg().devices().at(0); }

// Places graph's tensors in one buffer, fills the leafs with small random values, and times
// compute().
double time_graph(bk::Graph& graph, int threads, int reps) {
  size_t size = 0;
  std::vector<bk::Tensor*> owners(graph.leafs().begin(), graph.leafs().end());
  for (bk::Tensor* n : graph.nodes()) {
    if (!n->is_view()) owners.push_back(n);
  }
  std::vector<size_t> offsets;
  for (bk::Tensor* t : owners) {
    size = (size + 63) / 64 * 64;
    offsets.push_back(size);
    size += t->nbytes();
  }
  std::unique_ptr<bk::Buffer> buffer = cpu().buffer_type().alloc(size + 64);
  for (size_t i = 0; i < owners.size(); ++i) buffer->place_tensor(*owners[i], offsets[i]);
  for (bk::Tensor* n : graph.nodes()) {
    if (n->is_view()) bk::Buffer::init_view(*n);
  }
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  for (bk::Tensor* leaf : graph.leafs()) {
    std::vector<float> v(static_cast<size_t>(leaf->nelements()));
    for (float& x : v) x = d(rng);
    bk::quantize_row(leaf->type, v.data(), leaf->data, leaf->nelements());  // converts plain types
  }
  auto backend = cpu().init_backend();
  bk::cpu_set_threads(*backend, threads);
  return median_seconds(reps, [&] { backend->compute(graph); });
}

}  // namespace

double bk_mul_mat_seconds(int wtype, int64_t m, int64_t n, int64_t k, int threads, int reps) {
  const bk::DType types[] = {bk::DType::F32,  bk::DType::F16,  bk::DType::BF16, bk::DType::Q8_0,
                             bk::DType::Q4_0, bk::DType::Q4_K, bk::DType::Q6_K};
  bk::GraphBuilder g;
  bk::Tensor& r = bk::ops::mul_mat(g, g.weight(types[wtype], {k, m, 1, 1}, "w"),
                                   g.input(bk::DType::F32, {k, n, 1, 1}, "x"));
  bk::Graph graph = g.build({&r});
  return time_graph(graph, threads, reps);
}

double bk_peak_f32_gflops(int threads, int reps) {
  auto backend = cpu().init_backend();
  bk::cpu_set_threads(*backend, threads);
  double flops = 0;
  const double seconds = median_seconds(reps, [&] { flops = backend->run_peak_kernel(bk::DType::F32, 4e9); });
  return flops / seconds / 1e9;
}

double bk_add_seconds(int64_t n, int threads, int reps) {
  bk::GraphBuilder g;
  bk::Tensor& r =
      bk::ops::add(g, g.input(bk::DType::F32, {n, 1, 1, 1}, "a"), g.input(bk::DType::F32, {n, 1, 1, 1}, "b"));
  bk::Graph graph = g.build({&r});
  return time_graph(graph, threads, reps);
}

double bk_copy_seconds(int64_t n, int threads, int reps) {
  bk::GraphBuilder g;
  bk::Tensor& r =
      bk::ops::cpy(g, g.input(bk::DType::F32, {n, 1, 1, 1}, "a"), g.input(bk::DType::F32, {n, 1, 1, 1}, "b"));
  bk::Graph graph = g.build({&r});
  return time_graph(graph, threads, reps);
}

}  // namespace bkbench
