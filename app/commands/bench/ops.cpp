// `bkctl bench`: single-op kernels (mul_mat, add, cpy) on one device, with random inputs and a
// check of the result against a double-precision reference on sampled elements.
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "bk/error.h"
#include "bk/graph.h"
#include "bk/graph_allocator.h"
#include "bk/op_info.h"
#include "bk/ops.h"
#include "commands/bench/cli.h"
#include "commands/bench/util.h"
#include "probe/graph_data.h"

namespace bkctl {
namespace {

constexpr int kChecks = 64;  // sampled output elements per check

struct KernelSetup {
  bk::Graph graph;
  bk::GraphAllocator alloc;
  std::vector<std::vector<double>> inputs;  // per source, the values as stored (after rounding)
  bk::Tensor* out = nullptr;
};

// Uploads random values (never zero: ~U(0.1, 1) with a random sign) to a tensor, keeping the
// values as the device sees them (rounded to the tensor's dtype).
std::vector<double> upload_random(bk::Tensor& t, uint64_t seed) {
  Rng rng(seed);
  const size_t n = static_cast<size_t>(t.nelements());
  std::vector<uint8_t> bytes(n * bk::dtype_size(t.type));
  std::vector<double> values(n);
  for (size_t i = 0; i < n; ++i) {
    bk::store_from_double(t.type, bytes.data() + i * bk::dtype_size(t.type), rng.nonzero());
    values[i] = bk::load_as_double(t.type, bytes.data() + i * bk::dtype_size(t.type));
  }
  t.buffer->set_tensor(t, bytes.data(), 0, bytes.size());
  return values;
}

// The relative error bound a device may show: it may round activations to the weights' dtype.
double tolerance_for(bk::DType w) { return w == bk::DType::F32 ? 1e-4 : w == bk::DType::F16 ? 4e-3 : 3e-2; }

std::string check_mul_mat(const KernelSetup& s, int64_t n, bk::DType wtype) {
  const std::vector<double> got = bk::read_elements(*s.out);
  Rng rng(99);
  for (int c = 0; c < kChecks; ++c) {
    const int64_t m = static_cast<int64_t>(rng.below(static_cast<uint64_t>(n)));
    const int64_t j = static_cast<int64_t>(rng.below(static_cast<uint64_t>(n)));
    double ref = 0, scale = 0;
    for (int64_t k = 0; k < n; ++k) {
      const double p =
          s.inputs[0][static_cast<size_t>(m * n + k)] * s.inputs[1][static_cast<size_t>(j * n + k)];
      ref += p;
      scale += std::fabs(p);
    }
    const double v = got[static_cast<size_t>(j * n + m)];
    if (!std::isfinite(v) || std::fabs(v - ref) > tolerance_for(wtype) * scale) {
      return fmt::format("wrong result: r[{}, {}] = {} but the reference is {}", m, j, v, ref);
    }
  }
  return {};
}

std::string check_elementwise(const KernelSetup& s, bool add) {
  const std::vector<double> got = bk::read_elements(*s.out);
  Rng rng(98);
  for (int c = 0; c < kChecks; ++c) {
    const size_t i = static_cast<size_t>(rng.below(got.size()));
    const double ref = add ? s.inputs[0][i] + s.inputs[1][i] : s.inputs[0][i];
    if (!(std::fabs(got[i] - ref) <= 1e-6 * std::fabs(ref))) {
      return fmt::format("wrong result: element {} = {} but the reference is {}", i, got[i], ref);
    }
  }
  return {};
}

}  // namespace

BenchResult run_kernel_test(const BenchTest& test, DeviceContext& ctx) {
  BenchResult result{test};
  return guarded(result, [&] {
    auto s = std::make_shared<KernelSetup>();
    bk::GraphBuilder g;
    const int64_t n = test.size;
    bk::DType wtype = bk::DType::F32;
    bool add = false;
    std::vector<bk::Tensor*> sources;  // in the order the checks read s->inputs
    if (test.op == "mul_mat") {
      wtype = *bk::dtype_from_name(test.dtype);
      bk::Tensor& w = g.weight(wtype, {n, n, 1, 1}, "w");
      bk::Tensor& x = g.input(bk::DType::F32, {n, n, 1, 1}, "x");
      s->out = &bk::ops::mul_mat(g, w, x);
      sources = {&w, &x};
      result.unit = "GFLOP/s";
    } else {
      bk::Tensor& a = g.input(bk::DType::F32, {n, n, 1, 1}, "a");
      bk::Tensor& b = g.input(bk::DType::F32, {n, n, 1, 1}, "b");
      add = test.op == "add";
      s->out = add ? &bk::ops::add(g, a, b) : &bk::ops::cpy(g, a, b);
      sources = {&a, &b};
      result.unit = "GB/s";
    }
    s->graph = g.build({s->out});
    for (const bk::Tensor* node : s->graph.nodes()) {
      if (!ctx.device.supports_op(*node)) {
        result.status = BenchStatus::unsupported;
        result.reason = ctx.device.unsupported_reason(*node);
        return;
      }
    }
    s->alloc.alloc_graph(s->graph, ctx.device.buffer_type());
    uint64_t seed = 1;
    for (bk::Tensor* t : sources) s->inputs.push_back(upload_random(*t, seed++));
    const bk::OpCost cost = bk::graph_cost(s->graph);
    result.flops = cost.flops;
    result.bytes = static_cast<double>(cost.bytes_read + cost.bytes_written);
    const double work = test.op == "mul_mat" ? result.flops : result.bytes;
    RepetitionClock clock(ctx.device, ctx.backend);
    result.timer = clock.timer();
    measure_into(
        result, [&] { return clock.time([&] { ctx.backend.compute(s->graph); }); }, ctx.timing,
        [work](double seconds) { return work / seconds / 1e9; });
    const std::string wrong = test.op == "mul_mat" ? check_mul_mat(*s, n, wtype) : check_elementwise(*s, add);
    if (!wrong.empty()) {
      result.status = BenchStatus::error;
      result.reason = wrong;
    }
  });
}

void measure_into(BenchResult& result, const std::function<double()>& run, const bk::TimingOptions& timing,
                  const std::function<double(double)>& to_unit) {
  const bk::Timing t = bk::time_repeated(run, timing);
  std::vector<double> values;
  for (double s : t.samples) {
    if (!(s > 0)) throw bk::Error(bk::ErrorCode::device_error, "a repetition took no measurable time");
    values.push_back(to_unit(s));
  }
  result.stats = bk::summarize(values);
  result.status = BenchStatus::ok;
}

}  // namespace bkctl
