// SPDX-License-Identifier: MIT
// `bkctl bench`: single-op kernels (mul_mat, add, cpy) on one device, with random inputs, and
// after timing a check of every element of the result (probe/verify/full_check.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "bk/error.h"
#include "bk/graph.h"
#include "bk/graph_allocator.h"
#include "bk/op_info.h"
#include "bk/ops.h"
#include "commands/bench/cli.h"
#include "commands/bench/util.h"
#include "probe/graph_data.h"
#include "probe/verify/full_check.h"
#include "probe/verify/limits.h"
#include "probe/verify/quant_values.h"
#include "probe/verify/reference.h"
#include "probe/verify/rng.h"

namespace bkctl {
namespace {

struct KernelSetup {
  bk::Graph graph;
  bk::GraphAllocator alloc;
  std::vector<std::vector<double>> inputs;  // per source, the values as stored (rounded)
  bk::Tensor* out = nullptr;
};

// Uploads random values (never zero: |x| in [0.1, 1), random sign) to a packed tensor and
// returns them as the tensor stores them.
std::vector<double> upload_random(bk::Tensor& t, uint64_t seed) {
  bk::verify::SplitMix64 rng(seed);
  std::vector<double> values(static_cast<size_t>(t.nelements()));
  for (double& v : values) v = rng.signed_uniform(0.1, 1.0);
  bk::write_elements(t, values);
  if (bk::is_quantized(t.type)) return bk::verify::quantized_round_trip(t.type, values);
  for (double& v : values) v = bk::verify::round_to(t.type, v);
  return values;
}

// Reads row `row` of a packed 2-D device tensor as doubles.
void read_row(const bk::Tensor& t, int64_t row, std::vector<uint8_t>& bytes, std::vector<double>& out) {
  const size_t esize = bk::dtype_size(t.type);
  bytes.resize(static_cast<size_t>(t.ne[0]) * esize);
  out.resize(static_cast<size_t>(t.ne[0]));
  t.buffer->get_tensor(t, bytes.data(), static_cast<size_t>(row) * t.nb[1], bytes.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = bk::load_as_double(t.type, bytes.data() + i * esize);
}

// Every element of r = w x (r[j][m] = w_m . x_j, n x columns) through verify::ProductCheck, row
// by row.
std::string check_mul_mat(const KernelSetup& s, int64_t n, int64_t columns) {
  bk::verify::ProductCheck check(s.inputs[0], s.inputs[1], n, columns, n, bk::verify::limit_for(*s.out), 99);
  std::vector<uint8_t> bytes;
  std::vector<double> row;
  for (int64_t j = 0; j < columns; ++j) {
    read_row(*s.out, j, bytes, row);
    check.add_row(j, row);
  }
  const std::string wrong = check.verdict();
  return wrong.empty() ? wrong : "wrong result against the float64 reference: " + wrong;
}

// Every element of a + b or of cpy(a) against its value rounded as the output stores it.
std::string check_elementwise(const KernelSetup& s, int64_t n, bool add) {
  bk::verify::ElementCheck check(bk::verify::limit_for(*s.out));
  std::vector<uint8_t> bytes;
  std::vector<double> got, want(static_cast<size_t>(n));
  for (int64_t row = 0; row < n; ++row) {
    read_row(*s.out, row, bytes, got);
    for (int64_t i = 0; i < n; ++i) {
      const auto at = static_cast<size_t>(row * n + i);
      const double value = add ? s.inputs[0][at] + s.inputs[1][at] : s.inputs[0][at];
      want[static_cast<size_t>(i)] = bk::verify::round_to(s.out->type, value);
    }
    check.add(row * n, got, want);
  }
  const std::string wrong = check.verdict();
  return wrong.empty() ? wrong : "wrong result against the float64 reference: " + wrong;
}

}  // namespace

BenchResult run_kernel_test(const BenchTest& test, DeviceContext& ctx) {
  BenchResult result = result_for(test);
  return guarded(result, [&] {
    auto s = std::make_shared<KernelSetup>();
    bk::GraphBuilder g;
    const int64_t n = test.size;
    bk::DType wtype = bk::DType::F32;
    bool add = false;
    std::vector<bk::Tensor*> sources;  // in the order the checks read s->inputs
    const bool product = test.group == "mul_mat";
    const int64_t columns = test.op == "gemv" ? 1 : n;
    if (product) {
      wtype = *bk::dtype_from_name(test.dtype);
      bk::Tensor& w = g.weight(wtype, {n, n, 1, 1}, "w");
      bk::Tensor& x = g.input(bk::DType::F32, {n, columns, 1, 1}, "x");
      s->out = &bk::ops::mul_mat(g, w, x);
      sources = {&w, &x};
    } else {
      bk::Tensor& a = g.input(bk::DType::F32, {n, n, 1, 1}, "a");
      bk::Tensor& b = g.input(bk::DType::F32, {n, n, 1, 1}, "b");
      add = test.op == "add";
      s->out = add ? &bk::ops::add(g, a, b) : &bk::ops::cpy(g, a, b);
      sources = {&a, &b};
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
    const double work = product ? result.flops : result.bytes;
    RepetitionClock clock(ctx.device, ctx.backend);
    result.timer = clock.timer();
    measure_into(
        result, [&] { return clock.time([&] { ctx.backend.compute(s->graph); }); }, ctx.timing,
        [work](double seconds) { return work / seconds / 1e9; });
    // Checked after timing, in full: a wrong element anywhere fails the test (exit 1).
    const std::string wrong = product ? check_mul_mat(*s, n, columns) : check_elementwise(*s, n, add);
    if (!wrong.empty()) fail_check(result, wrong);
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
  result.ci_met = t.ci_met;
  result.status = BenchStatus::ok;
}

}  // namespace bkctl
