// SPDX-License-Identifier: MIT
// `bkctl bench`: single-op kernels (mul_mat, add, cpy) on one device, with random inputs, and
// after timing a check of the result against the float64 reference on sampled rows.
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
#include "probe/verify/limits.h"
#include "probe/verify/nmse.h"
#include "probe/verify/reference.h"
#include "probe/verify/rng.h"

namespace bkctl {
namespace {

// The check recomputes a sample, not the whole output: the full float64 reference of a side^3
// mul_mat costs seconds at side 1024 and hours at the largest side, and the bandwidth tests
// move up to 16384^2 elements. It takes kSampled rows of the output (for mul_mat, the block of
// kSampled weight rows by kSampled activation columns: 64 elements, each a full K-long dot
// product), evaluates the same op on just those rows with the float64 reference, and judges them
// by NMSE against the op's limit (probe/verify). Costs side * 64 multiply-adds at most.
constexpr int64_t kSampled = 8;

struct KernelSetup {
  bk::Graph graph;
  bk::GraphAllocator alloc;
  std::vector<std::vector<double>> inputs;  // per source, the values written (before rounding)
  bk::Tensor* out = nullptr;
};

// Uploads random values (never zero: |x| in [0.1, 1), random sign) to a packed tensor and
// returns them.
std::vector<double> upload_random(bk::Tensor& t, uint64_t seed) {
  bk::verify::SplitMix64 rng(seed);
  std::vector<double> values(static_cast<size_t>(t.nelements()));
  for (double& v : values) v = rng.signed_uniform(0.1, 1.0);
  bk::write_elements(t, values);
  return values;
}

// kSampled distinct row numbers below n (all of them when n is that small), ascending: the first
// and the last, where tiles and tails go wrong, and random ones between.
std::vector<int64_t> sample_rows(int64_t n, uint64_t seed) {
  std::vector<int64_t> rows{0};
  if (n > 1) rows.push_back(n - 1);
  bk::verify::SplitMix64 rng(seed);
  while (static_cast<int64_t>(rows.size()) < std::min(n, kSampled)) {
    const auto r = static_cast<int64_t>(rng.below(static_cast<uint64_t>(n)));
    if (std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// Rows `rows` of a [n, n] tensor's values, as a [n, rows.size()] tensor's.
std::vector<double> gather_rows(const std::vector<double>& values, int64_t n,
                                const std::vector<int64_t>& rows) {
  std::vector<double> out;
  for (int64_t r : rows) {
    const auto first = values.begin() + static_cast<std::ptrdiff_t>(r * n);
    out.insert(out.end(), first, first + static_cast<std::ptrdiff_t>(n));
  }
  return out;
}

// Element i0 of rows `rows` of a packed [n, n] device tensor, for each i0 in `columns` (every
// one when `columns` is empty), row after row: only those rows are read back.
std::vector<double> read_sample(const bk::Tensor& t, const std::vector<int64_t>& rows,
                                const std::vector<int64_t>& columns) {
  const size_t esize = bk::dtype_size(t.type);
  std::vector<uint8_t> row(static_cast<size_t>(t.ne[0]) * esize);
  std::vector<double> out;
  for (int64_t r : rows) {
    t.buffer->get_tensor(t, row.data(), static_cast<size_t>(r) * t.nb[1], row.size());
    if (columns.empty()) {
      for (size_t i = 0; i < static_cast<size_t>(t.ne[0]); ++i)
        out.push_back(bk::load_as_double(t.type, row.data() + i * esize));
    }
    for (int64_t c : columns)
      out.push_back(bk::load_as_double(t.type, row.data() + static_cast<size_t>(c) * esize));
  }
  return out;
}

// Judges what the device computed on the sampled rows (`got`) against the float64 reference of
// `sample`, the same op on just those rows of its sources (`sources`). `where` says which rows
// of the real output the sample's indices stand for. Empty when it passes.
std::string check_sample(const bk::Graph& sample, bk::verify::LeafValues sources,
                         const std::vector<double>& got, const std::string& where) {
  const bk::Tensor& out = *sample.outputs().front();
  const bk::verify::Reference reference(sample, std::move(sources));
  const bk::verify::NmseCheck check =
      bk::verify::check_nmse(got, reference.values(out), bk::verify::graph_limit(sample), out);
  if (check.ok) return {};
  return fmt::format("wrong result against the float64 reference on {}: {}", where, check.message);
}

// r[m, j] = w_m . x_j: the sample is rows m of w (weight rows) and rows j of x (activation
// columns, which are the rows of r), the block r[ms, js].
std::string check_mul_mat(const KernelSetup& s, int64_t n, bk::DType wtype) {
  const std::vector<int64_t> ms = sample_rows(n, 99), js = sample_rows(n, 98);
  bk::GraphBuilder g;
  bk::Tensor& w = g.weight(wtype, {n, static_cast<int64_t>(ms.size()), 1, 1}, "w_rows");
  bk::Tensor& x = g.input(bk::DType::F32, {n, static_cast<int64_t>(js.size()), 1, 1}, "x_columns");
  bk::Tensor& r = bk::ops::mul_mat(g, w, x);
  r.name = "r_block";
  const bk::Graph sample = g.build({&r});
  return check_sample(sample, {{&w, gather_rows(s.inputs[0], n, ms)}, {&x, gather_rows(s.inputs[1], n, js)}},
                      read_sample(*s.out, js, ms),
                      fmt::format("the block r[m, j] for m in {{{}}}, j in {{{}}}", fmt::join(ms, ", "),
                                  fmt::join(js, ", ")));
}

std::string check_elementwise(const KernelSetup& s, int64_t n, bool add) {
  const std::vector<int64_t> rows = sample_rows(n, 97);
  const bk::Shape ne{n, static_cast<int64_t>(rows.size()), 1, 1};
  bk::GraphBuilder g;
  bk::Tensor& a = g.input(bk::DType::F32, ne, "a_rows");
  bk::Tensor& b = g.input(bk::DType::F32, ne, "b_rows");
  bk::Tensor& r = add ? bk::ops::add(g, a, b) : bk::ops::cpy(g, a, b);
  r.name = "r_rows";
  const bk::Graph sample = g.build({&r});
  return check_sample(sample,
                      {{&a, gather_rows(s.inputs[0], n, rows)}, {&b, gather_rows(s.inputs[1], n, rows)}},
                      read_sample(*s.out, rows, {}), fmt::format("rows {{{}}}", fmt::join(rows, ", ")));
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
    const std::string wrong =
        test.op == "mul_mat" ? check_mul_mat(*s, n, wtype) : check_elementwise(*s, n, add);
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
