// SPDX-License-Identifier: MIT
// The peer side of scripts/bench-sched.sh (not part of bk's build): ggml's scheduler on the
// same graph as bench/sched_bench.cpp, bk's built-in transformer (probe/model_graphs.cpp), op for
// op, so that the two times make a ratio. Built against a ggml the user has; see the script.
//
//   ggml_sched_bench [reps] [layers...]
//
// Cases, as in sched_bench: the CPU backend alone; and BLAS + CPU, where the BLAS backend runs
// only mul_mat, so the scheduler splits around every other op (bk's "mm" simulated device runs
// mul_mat and add). alloc_graph is ggml_backend_sched_reset + ggml_backend_sched_alloc_graph,
// the work that repeats for every evaluated graph: ggml splits the graph again, checks that it
// fits the memory plan of the graph before (ggml_gallocr_needs_realloc: node counts, each
// tensor's size) and places every tensor by that plan; it plans memory again only when the
// graph does not fit.
// Prints one tab-separated row per case and layer count: case, layers, nodes, splits, alloc_us.
#include <ggml-alloc.h>
#include <ggml-backend.h>
#include <ggml-blas.h>
#include <ggml-cpu.h>
#include <ggml.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kHidden = 4096, kHeads = 32, kBatch = 32;
constexpr int kHeadDim = kHidden / kHeads;
constexpr int kVocab = 4 * kHidden;
constexpr int kFf = (8 * kHidden / 3 + 31) / 32 * 32;
constexpr float kEps = 1e-5f, kRopeBase = 10000.0f;

// The transformer of probe/model_graphs.cpp in ggml's ops. Weights go into `weights`, the
// rest into `ctx`.
struct Builder {
  ggml_context* ctx;
  ggml_context* weights;
  ggml_tensor* positions;
  ggml_tensor* mask;

  ggml_tensor* matrix(int64_t k, int64_t m) { return ggml_new_tensor_2d(weights, GGML_TYPE_F16, k, m); }
  ggml_tensor* vector(int64_t n) { return ggml_new_tensor_1d(weights, GGML_TYPE_F32, n); }
  ggml_tensor* norm(ggml_tensor* x) { return ggml_mul(ctx, ggml_rms_norm(ctx, x, kEps), vector(kHidden)); }

  ggml_tensor* rotated(ggml_tensor* x) {
    ggml_tensor* heads =
        ggml_reshape_3d(ctx, ggml_mul_mat(ctx, matrix(kHidden, kHidden), x), kHeadDim, kHeads, kBatch);
    return ggml_rope_ext(ctx, heads, positions, nullptr, kHeadDim, 0, 0, kRopeBase, 1, 0, 1, 0, 0);
  }

  ggml_tensor* attention(ggml_tensor* x) {
    ggml_tensor* n = norm(x);
    ggml_tensor* q = rotated(n);
    ggml_tensor* k = rotated(n);
    ggml_tensor* v = ggml_mul_mat(ctx, matrix(kHidden, kHidden), n);
    ggml_tensor* qp = ggml_cont(ctx, ggml_permute(ctx, q, 0, 2, 1, 3));
    ggml_tensor* kp = ggml_cont(ctx, ggml_permute(ctx, k, 0, 2, 1, 3));
    ggml_tensor* kq = ggml_mul_mat(ctx, kp, qp);
    ggml_tensor* sm = ggml_soft_max_ext(ctx, kq, mask, 1.0f / std::sqrt(static_cast<float>(kHeadDim)), 0);
    ggml_tensor* v3 = ggml_reshape_3d(ctx, v, kHeadDim, kHeads, kBatch);
    ggml_tensor* vt = ggml_cont(ctx, ggml_permute(ctx, v3, 1, 2, 0, 3));
    ggml_tensor* kqv = ggml_mul_mat(ctx, vt, sm);
    ggml_tensor* merged = ggml_cont(ctx, ggml_permute(ctx, kqv, 0, 2, 1, 3));
    ggml_tensor* flat = ggml_reshape_2d(ctx, merged, kHidden, kBatch);
    return ggml_add(ctx, x, ggml_mul_mat(ctx, matrix(kHidden, kHidden), flat));
  }

  ggml_tensor* feed_forward(ggml_tensor* x) {
    ggml_tensor* n = norm(x);
    ggml_tensor* act = ggml_silu(ctx, ggml_mul_mat(ctx, matrix(kHidden, kFf), n));
    ggml_tensor* up = ggml_mul_mat(ctx, matrix(kHidden, kFf), n);
    ggml_tensor* down = ggml_mul_mat(ctx, matrix(kFf, kHidden), ggml_mul(ctx, act, up));
    return ggml_add(ctx, x, down);
  }

  ggml_cgraph* transformer(int layers) {
    ggml_tensor* tokens = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, kBatch);
    positions = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, kBatch);
    mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, kBatch, kBatch);
    for (ggml_tensor* input : {tokens, positions, mask}) ggml_set_input(input);
    ggml_tensor* x = ggml_get_rows(ctx, matrix(kHidden, kVocab), tokens);
    for (int l = 0; l < layers; ++l) x = feed_forward(attention(x));
    ggml_tensor* out = ggml_mul_mat(ctx, matrix(kHidden, kVocab), norm(x));
    ggml_set_output(out);
    ggml_cgraph* graph = ggml_new_graph_custom(ctx, 16384, false);
    ggml_build_forward_expand(graph, out);
    return graph;
  }
};

ggml_context* no_alloc_context(size_t tensors) {
  ggml_init_params params{tensors * ggml_tensor_overhead() + ggml_graph_overhead_custom(16384, false),
                          nullptr, true};
  return ggml_init(params);
}

double median_us(int reps, ggml_backend_sched_t sched, ggml_cgraph* graph) {
  std::vector<double> us(static_cast<size_t>(reps));
  for (int i = -std::max(10, reps / 20); i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    ggml_backend_sched_reset(sched);
    if (!ggml_backend_sched_alloc_graph(sched, graph)) {
      std::fprintf(stderr, "ggml_sched_bench: ggml_backend_sched_alloc_graph failed\n");
      std::exit(1);
    }
    const double t =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    if (i >= 0) us[static_cast<size_t>(i)] = t;
  }
  std::nth_element(us.begin(), us.begin() + reps / 2, us.end());
  return us[static_cast<size_t>(reps / 2)];
}

void measure(const char* name, std::vector<ggml_backend_t> backends, int layers, int reps) {
  ggml_context* ctx = no_alloc_context(16384);
  ggml_context* weights = no_alloc_context(16 * static_cast<size_t>(layers) + 16);
  Builder b{ctx, weights, nullptr, nullptr};
  ggml_cgraph* graph = b.transformer(layers);
  // The weights in a CPU buffer over address space that is reserved, never written (64 layers of
  // F16 weights are 25 GB).
  size_t bytes = 0;
  for (ggml_tensor* t = ggml_get_first_tensor(weights); t; t = ggml_get_next_tensor(weights, t)) {
    bytes += ggml_nbytes(t) + 64;
  }
  void* space =
      mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (space == MAP_FAILED) {
    std::fprintf(stderr, "ggml_sched_bench: cannot reserve %zu bytes of address space\n", bytes);
    std::exit(1);
  }
  ggml_backend_buffer_t buffer = ggml_backend_cpu_buffer_from_ptr(space, bytes);
  ggml_backend_buffer_set_usage(buffer, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
  ggml_tallocr place = ggml_tallocr_new(buffer);
  for (ggml_tensor* t = ggml_get_first_tensor(weights); t; t = ggml_get_next_tensor(weights, t)) {
    ggml_tallocr_alloc(&place, t);
  }
  ggml_backend_sched_t sched = ggml_backend_sched_new(backends.data(), nullptr,
                                                      static_cast<int>(backends.size()), 16384, false, false);
  ggml_backend_sched_reserve(sched, graph);
  const double us = median_us(reps, sched, graph);
  std::printf("%s\t%d\t%d\t%d\t%.1f\n", name, layers, ggml_graph_n_nodes(graph),
              ggml_backend_sched_get_n_splits(sched), us);
  ggml_backend_sched_free(sched);
  ggml_backend_buffer_free(buffer);
  munmap(space, bytes);
  ggml_free(weights);
  ggml_free(ctx);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2000;
  std::vector<int> layers;
  for (int i = 2; i < argc; ++i) layers.push_back(std::atoi(argv[i]));
  if (layers.empty()) layers = {32};
  ggml_backend_t cpu = ggml_backend_cpu_init();
  ggml_backend_t blas = ggml_backend_blas_init();
  for (int n : layers) {
    measure("CPU", {cpu}, n, reps);
    measure("BLAS (mul_mat) + CPU", {blas, cpu}, n, reps);
  }
  ggml_backend_free(blas);
  ggml_backend_free(cpu);
  return 0;
}
