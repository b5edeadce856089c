// SPDX-License-Identifier: MIT
// `bkctl bench --model FILE.gguf --tokens 1,260,300 --logits out.json`: evaluates the token
// sequence in one batch on the benchmarked device and writes every position's logits and argmax
// (schema bk.logits/v1), for holding bk's numbers against another implementation's on the same
// file (docs/models.md). With --check, the logits are also compared with the float64 reference.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "bk/strings.h"
#include "bk/version.h"
#include "commands/bench/cli.h"
#include "exit_codes.h"
#include "output/report_file.h"
#include "probe/model_run.h"

namespace bkctl {
namespace {

std::vector<int32_t> parse_tokens(const std::string& text, int64_t vocab) {
  std::vector<int32_t> ids;
  for (const std::string& item : bk::split(text, ',')) {
    const std::string t = bk::trim(item);
    int64_t id = -1;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), id);
    if (t.empty() || ec != std::errc{} || end != t.data() + t.size() || id < 0 || id >= vocab)
      usage_error(fmt::format("--tokens: '{}' is not a token id of this model (0 to {})", t, vocab - 1));
    ids.push_back(static_cast<int32_t>(id));
  }
  if (ids.empty()) usage_error("--tokens needs at least one token id, e.g. --tokens 1,260,300");
  return ids;
}

ojson positions_json(const std::vector<double>& logits, const std::vector<int32_t>& tokens, int64_t vocab) {
  ojson out = ojson::array();
  for (size_t i = 0; i < tokens.size(); ++i) {
    const auto first = logits.begin() + static_cast<std::ptrdiff_t>(i * static_cast<size_t>(vocab));
    const auto last = first + vocab;
    ojson row = ojson::array();
    for (auto it = first; it != last; ++it) row.push_back(std::isfinite(*it) ? ojson(*it) : ojson(nullptr));
    out.push_back({{"position", i},
                   {"token", tokens[i]},
                   {"argmax", std::max_element(first, last) - first},
                   {"logits", row}});
  }
  return out;
}

}  // namespace

int run_logits(const BenchArgs& args) {
  if (args.model.empty() || args.tokens.empty())
    usage_error("--logits needs --model FILE.gguf and --tokens LIST (the sequence to evaluate)");
  ReportFile report(args.logits, "--logits");  // a bad path fails before any work
  const bk::GgufFile file = bk::GgufFile::open(args.model);
  const bk::LlamaParams params = bk::llama_params(file);
  const std::vector<int32_t> tokens = parse_tokens(args.tokens, params.vocab);
  bk::Device& device = *bench_devices(args).front();
  std::unique_ptr<bk::Backend> own = device.init_backend();
  apply_thread_count(*own, args.threads);
  const bk::TimingOptions timing = timing_options(args);
  DeviceContext ctx{device, *own, timing, args};
  GraphBackends scheduled(ctx);
  const auto n = static_cast<int64_t>(tokens.size());
  bk::ModelSession session(file, scheduled.list, std::vector<int>(static_cast<size_t>(params.layers) + 1, 0),
                           n, args.no_mmap ? bk::CpuWeights::copied : bk::CpuWeights::mapped);
  bk::ModelSession::Prepared& graph = session.prepare(n, 0, true);
  session.set_tokens(graph, tokens);
  bk::ModelSession::compute(graph);
  const std::vector<double> logits = bk::ModelSession::logits(graph);

  ojson doc = json_document("bk.logits/v1");
  doc["bkctl_version"] = std::string(bk::kVersion);
  doc["model"] = {
      {"file", file.path()}, {"name", params.name}, {"arch", params.arch}, {"vocab", params.vocab}};
  doc["device"] = device.name();
  doc["tokens"] = tokens;
  doc["positions"] = positions_json(logits, tokens, params.vocab);
  doc["check"] = nullptr;
  bool ok = true;
  if (args.check) {
    const bk::verify::NmseCheck c = session.check(graph);
    doc["check"] = {{"reference", "float64"},
                    {"nmse", std::isfinite(c.nmse) ? ojson(c.nmse) : ojson(nullptr)},
                    {"limit", c.limit},
                    {"ok", c.ok}};
    ok = c.ok;
    if (!ok) std::fprintf(stderr, "bkctl: bench: --check: %s\n", c.message.c_str());
  }
  report.commit(doc.dump(2) + "\n");
  std::fprintf(stderr, "bkctl: wrote the logits of %zu positions (vocab %lld) on %s to %s\n", tokens.size(),
               static_cast<long long>(params.vocab), device.name().c_str(), report.path().c_str());
  return ok ? kExitOk : kExitCheckFailed;
}

}  // namespace bkctl
