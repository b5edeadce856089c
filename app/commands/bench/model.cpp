// SPDX-License-Identifier: MIT
// `bkctl bench --model FILE.gguf`: llama-bench's two measures with the file's weights on the
// bench device (every layer there, the token embedding on the CPU):
//   pp N  one prompt of N tokens in one batch; tokens/s = N / seconds per evaluation
//   tg N  N tokens generated one at a time after each other, each a graph of one token after
//         those before it in the KV cache; tokens/s = N / seconds for all N
// With --check, each first computes a short prompt (pp) or a token after it (tg) and compares the
// logits with the float64 reference on the same stored weights.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "bk/device.h"
#include "bk/op_info.h"
#include "bk/units.h"
#include "commands/bench/cli.h"
#include "commands/bench/util.h"
#include "probe/graph_run.h"
#include "probe/model_run.h"

namespace bkctl {
namespace {

// A prompt long enough to take the batched paths, short enough for the reference.
constexpr int64_t kCheckTokens = 16;

// Token ids spread over the vocabulary (what the ids are does not change the work).
std::vector<int32_t> token_ids(int64_t count, int64_t past, int64_t vocab) {
  std::vector<int32_t> ids;
  for (int64_t i = past; i < past + count; ++i) ids.push_back(static_cast<int32_t>((i * 7919 + 1) % vocab));
  return ids;
}

// The reference holds every weight as doubles: refuse a check that host memory cannot take.
void require_reference_memory(const bk::Graph& graph, const bk::Device& cpu) {
  const size_t need = bk::verification_host_bytes(graph);
  const size_t free = cpu.memory().free;
  if (need > free / 10 * 8) {
    throw bk::Error(
        bk::ErrorCode::out_of_memory,
        fmt::format("--check: the float64 reference of this model needs {} of host memory and {} is "
                    "free; check a smaller model (the kernels are the same)",
                    bk::format_bytes(need), bk::format_bytes(free)));
  }
}

// Computes `graph` and judges its logits; records the result's check fields.
bool check_logits(bk::ModelSession& session, bk::ModelSession::Prepared& graph, const bk::Device& cpu,
                  BenchResult& result) {
  require_reference_memory(graph.model.graph, cpu);
  bk::ModelSession::compute(graph);
  const bk::verify::NmseCheck c = session.check(graph);
  result.check_nmse = c.nmse;
  result.check_limit = c.limit;
  if (!c.ok) fail_check(result, "logits against the float64 reference: " + c.message);
  return c.ok;
}

bool checked(bk::ModelSession& session, const BenchTest& test, const bk::Device& cpu, BenchResult& result) {
  const int64_t vocab = session.params().vocab;
  const int64_t prompt = std::min<int64_t>(kCheckTokens, test.op == "pp" ? test.size : kCheckTokens);
  bk::ModelSession::Prepared& first = session.prepare(prompt, 0);
  session.set_tokens(first, token_ids(prompt, 0, vocab));
  if (test.op == "pp") return check_logits(session, first, cpu, result);
  bk::ModelSession::compute(first);
  bk::ModelSession::Prepared& next = session.prepare(1, prompt);
  session.set_tokens(next, token_ids(1, prompt, vocab));
  return check_logits(session, next, cpu, result);
}

void add_memory(const bk::ModelSession& session, const bk::Scheduler& sched, const GraphBackends& scheduled,
                BenchResult& result) {
  const bk::SchedReport report = sched.report();
  for (size_t d = 0; d < scheduled.devices.size(); ++d) {
    const bk::Device& device = *scheduled.devices[d];
    result.memory.push_back({device.name(), session.bytes_on(device) + report.compute_buffer_bytes[d],
                             session.mapped_bytes_on(device)});
  }
}

void measure_prompt(bk::ModelSession& session, const BenchTest& test, const GraphBackends& scheduled,
                    const bk::TimingOptions& timing, BenchResult& result) {
  bk::ModelSession::Prepared& graph = session.prepare(test.size, 0);
  session.set_tokens(graph, token_ids(test.size, 0, session.params().vocab));
  const double tokens = static_cast<double>(test.size);
  measure_into(
      result,
      [&] {
        const double t0 = bk::now_seconds();
        bk::ModelSession::compute(graph);
        return bk::now_seconds() - t0;
      },
      timing, [tokens](double s) { return tokens / s; });
  const bk::OpCost cost = bk::graph_cost(graph.model.graph);
  result.flops = cost.flops;
  result.bytes = static_cast<double>(cost.bytes_read + cost.bytes_written);
  add_splits(*graph.sched, graph.model.graph, scheduled.devices, result);
  profile_splits(*graph.sched, graph.model.graph, tokens / result.stats.median, timing, result.splits);
  add_memory(session, *graph.sched, scheduled, result);
}

void measure_generation(bk::ModelSession& session, const BenchTest& test, const GraphBackends& scheduled,
                        const bk::TimingOptions& timing, BenchResult& result) {
  std::vector<bk::ModelSession::Prepared*> steps;
  for (int64_t past = 0; past < test.size; ++past) {
    bk::ModelSession::Prepared& step = session.prepare(1, past);
    session.set_tokens(step, token_ids(1, past, session.params().vocab));
    steps.push_back(&step);
  }
  const double tokens = static_cast<double>(test.size);
  measure_into(
      result,
      [&] {
        const double t0 = bk::now_seconds();
        for (bk::ModelSession::Prepared* step : steps) bk::ModelSession::compute(*step);
        return bk::now_seconds() - t0;
      },
      timing, [tokens](double s) { return tokens / s; });
  // The middle step stands for all of them in the split table.
  bk::ModelSession::Prepared& middle = *steps[steps.size() / 2];
  double flops = 0, bytes = 0;
  for (const bk::ModelSession::Prepared* step : steps) {
    const bk::OpCost cost = bk::graph_cost(step->model.graph);
    flops += cost.flops;
    bytes += static_cast<double>(cost.bytes_read + cost.bytes_written);
  }
  result.flops = flops;
  result.bytes = bytes;
  add_splits(*middle.sched, middle.model.graph, scheduled.devices, result);
  profile_splits(*middle.sched, middle.model.graph, 1.0 / result.stats.median, timing, result.splits);
  add_memory(session, *middle.sched, scheduled, result);
}

}  // namespace

std::string model_test_name(const BenchArgs& args) {
  const bk::GgufFile file = bk::GgufFile::open(args.model);
  bk::llama_params(file);  // an architecture bk builds, with consistent metadata
  if (!file.has_data()) {
    throw bk::Error(
        bk::ErrorCode::invalid_argument,
        fmt::format("--model {}: a header-only file has no weights to compute; plan it with bkctl "
                    "sched --model instead",
                    args.model));
  }
  if (args.pp < 1 || args.tg < 1 || static_cast<int64_t>(args.pp) + args.tg > (int64_t{1} << 20)) {
    throw bk::Error(bk::ErrorCode::invalid_argument,
                    fmt::format("--pp {} and --tg {} must be at least 1 each", args.pp, args.tg));
  }
  return std::filesystem::path(args.model).stem().string();
}

BenchResult run_model_test(const BenchTest& test, DeviceContext& ctx) {
  BenchResult result = result_for(test);
  return guarded(result, [&] {
    const bk::GgufFile file = bk::GgufFile::open(ctx.args.model);
    const bk::LlamaParams params = bk::llama_params(file);
    GraphBackends scheduled(ctx);
    // Every layer on the bench device (the first), the token embedding on the CPU (the last);
    // the cache holds the prompt and the generated tokens, as llama-bench sizes its context.
    bk::ModelSession session(
        file, scheduled.list, std::vector<int>(static_cast<size_t>(params.layers) + 1, 0),
        ctx.args.pp + ctx.args.tg, ctx.args.no_mmap ? bk::CpuWeights::copied : bk::CpuWeights::mapped);
    if (ctx.args.check && !checked(session, test, *scheduled.devices.back(), result)) return;
    if (test.op == "pp") {
      measure_prompt(session, test, scheduled, ctx.timing, result);
    } else {
      measure_generation(session, test, scheduled, ctx.timing, result);
    }
  });
}

}  // namespace bkctl
