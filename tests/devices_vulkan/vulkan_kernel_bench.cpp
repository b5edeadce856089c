// A rough kernel benchmark for Vulkan0 (not a test): mul_mat GFLOP/s per weight dtype and
// shape, and add bandwidth. Each case is timed as the best of several compute + synchronize
// rounds after one warm-up (which also creates the pipeline).
//
//   export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json MESA_SHADER_CACHE_DISABLE=true
//   build/bin/vulkan_kernel_bench [M N K [reps]]

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/ops.h"
#include "vulkan_graph_util.h"
#include "vulkan_test_util.h"

namespace bk::test {
namespace {

double best_seconds(Backend& backend, Graph& g, int reps) {
  backend.compute(g);
  backend.synchronize();
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    backend.compute(g);
    backend.synchronize();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

void mul_mat(Device& dev, Backend& backend, DType w, int64_t m, int64_t n, int64_t k, int reps) {
  GraphBuilder b;
  Tensor& r = ops::mul_mat(b, b.weight(w, {k, m, 1, 1}, "w"), b.input(DType::F32, {k, n, 1, 1}, "x"));
  Graph g = b.build({&r});
  PlacedGraph p(dev, g);
  p.buffer().clear(0x3C);  // small finite values in every dtype
  const double s = best_seconds(backend, g, reps);
  fmt::print("mul_mat {:4} M={} N={} K={}: {:.3f} ms, {:.2f} GFLOP/s\n", dtype_name(w), m, n, k, s * 1e3,
             2.0 * static_cast<double>(m * n * k) / s / 1e9);
}

void add(Device& dev, Backend& backend, int64_t n, int reps) {
  GraphBuilder b;
  Tensor& r = ops::add(b, b.input(DType::F32, {n, 1, 1, 1}, "a"), b.input(DType::F32, {n, 1, 1, 1}, "b"));
  Graph g = b.build({&r});
  PlacedGraph p(dev, g);
  p.buffer().clear(0x3C);
  const double s = best_seconds(backend, g, reps);
  fmt::print("add f32 n={}: {:.3f} ms, {:.2f} GB/s (3 x 4 bytes per element)\n", n, s * 1e3,
             12.0 * static_cast<double>(n) / s / 1e9);
}

// The same bytes through vkCmdCopyBuffer (copy_tensor_async on one device): the bandwidth
// ceiling the element-wise kernels are measured against.
void copy(Device& dev, Backend& backend, int64_t n, int reps) {
  GraphBuilder b;
  Tensor& src = b.input(DType::F32, {n, 1, 1, 1}, "src");
  Tensor& dst = ops::scale(b, src, 1.0f);  // only to own memory; never computed here
  Graph g = b.build({&dst});
  PlacedGraph p(dev, g);
  p.buffer().clear(0x3C);
  double best = 1e30;
  for (int i = 0; i <= reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    backend.copy_tensor_async(backend, src, dst);
    backend.synchronize();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i > 0) best = std::min(best, s);
  }
  fmt::print("vkCmdCopyBuffer n={} f32: {:.3f} ms, {:.2f} GB/s (read + write)\n", n, best * 1e3,
             8.0 * static_cast<double>(n) / best / 1e9);
}

int run(int argc, char** argv) {
  Device* dev = vulkan_device();
  if (dev == nullptr) {
    fmt::print(stderr, "no Vulkan device: {}\n", vulkan_status());
    return 1;
  }
  fmt::print("{} ({})\n", dev->name(), dev->description());
  auto backend = dev->init_backend();
  const int reps = argc > 4 ? std::atoi(argv[4]) : 3;
  if (argc > 3) {
    const int64_t m = std::atoll(argv[1]), n = std::atoll(argv[2]), k = std::atoll(argv[3]);
    for (DType w : {DType::F32, DType::F16, DType::BF16}) mul_mat(*dev, *backend, w, m, n, k, reps);
    return 0;
  }
  mul_mat(*dev, *backend, DType::F32, 1024, 1024, 1024, reps);
  mul_mat(*dev, *backend, DType::F16, 1024, 1024, 1024, reps);
  mul_mat(*dev, *backend, DType::BF16, 1024, 1024, 1024, reps);
  mul_mat(*dev, *backend, DType::F32, 4096, 32, 4096, reps);
  mul_mat(*dev, *backend, DType::F16, 4096, 32, 4096, reps);
  mul_mat(*dev, *backend, DType::F16, 4096, 1, 4096, reps);
  add(*dev, *backend, int64_t{1} << 24, reps);
  copy(*dev, *backend, int64_t{1} << 24, reps);
  return 0;
}

}  // namespace
}  // namespace bk::test

int main(int argc, char** argv) {
  try {
    return bk::test::run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "vulkan_kernel_bench: {}\n", e.what());
    return 1;
  }
}
