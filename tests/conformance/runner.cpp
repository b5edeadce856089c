// SPDX-License-Identifier: MIT
#include "runner.h"

#include <fmt/format.h>

#include <cstdlib>
#include <exception>
#include <random>

#include "fill.h"
#include "probe/verify/device_run.h"
#include "probe/verify/limits.h"
#include "probe/verify/nmse.h"

namespace bk::conformance {
namespace {

std::string unsupported_node(const Device& device, const Graph& graph) {
  for (const Tensor* node : graph.nodes()) {
    if (device.supports_op(*node)) continue;
    std::string reason = device.unsupported_reason(*node);
    if (reason.empty()) reason = "supports_op is false but unsupported_reason gives none";
    return fmt::format("node '{}' ({} {}): {}", node->name, op_name(node->op), node->shape_string(), reason);
  }
  return {};
}

const KnownFailure* find_known(const Device& device, const std::string& name,
                               std::vector<KnownFailure>& storage) {
  storage = device.known_conformance_failures();
  for (const KnownFailure& k : storage) {
    if (k.case_name == name) return &k;
  }
  return nullptr;
}

// Passed (empty message) or failed (why).
Outcome execute(Device& device, Backend& backend, const Case& c, Graph& graph, uint64_t seed) {
  const double limit = verify::graph_limit(graph);
  verify::SplitMix64 rng(seed);
  const verify::LeafValues inputs = fill_leafs(graph, c, rng);
  const verify::Reference reference(graph, inputs);
  verify::DeviceRun run(device, graph);
  run.write_inputs(inputs);
  run.compute(backend);
  for (const Tensor* out : graph.outputs()) {
    const verify::NmseCheck check = verify::check_nmse(run.read(*out), reference.values(*out), limit, *out);
    if (!check.ok) return {Verdict::failed, check.message};
  }
  return {Verdict::passed, {}};
}

Outcome execute_guarded(Device& device, Backend& backend, const Case& c, Graph& graph, uint64_t seed) {
  try {
    return execute(device, backend, c, graph, seed);
  } catch (const std::exception& e) {
    return {Verdict::failed, fmt::format("threw: {}", e.what())};
  }
}

}  // namespace

const char* verdict_name(Verdict verdict) noexcept {
  switch (verdict) {
    case Verdict::passed:
      return "passed";
    case Verdict::failed:
      return "failed";
    case Verdict::unsupported:
      return "unsupported";
    case Verdict::expected_failure:
      return "expected failure";
    case Verdict::unexpected_pass:
      return "unexpected pass";
  }
  return "failed";
}

Outcome run_case(Device& device, Backend& backend, const Case& c, uint64_t seed) {
  const std::string where = fmt::format("{} on {} (seed {}; replay with BK_CONFORMANCE_SEED={})", c.name,
                                        device.name(), seed, seed);
  Graph graph;
  try {
    graph = c.build();
  } catch (const std::exception& e) {
    return {Verdict::failed, fmt::format("{}: the case does not build: {}", where, e.what())};
  }
  if (std::string why = unsupported_node(device, graph); !why.empty()) {
    return {Verdict::unsupported, fmt::format("{} declares {}", device.name(), why)};
  }
  std::vector<KnownFailure> known_list;
  const KnownFailure* known = find_known(device, c.name, known_list);
  const Outcome raw = execute_guarded(device, backend, c, graph, seed);
  if (known == nullptr) {
    return raw.verdict == Verdict::passed
               ? raw
               : Outcome{Verdict::failed, fmt::format("{}: {}", where, raw.message)};
  }
  if (raw.verdict == Verdict::passed) {
    return {Verdict::unexpected_pass,
            fmt::format("{}: passed, but {} declares it a known failure ({}); remove it from "
                        "known_conformance_failures()",
                        where, device.name(), known->reason)};
  }
  return {Verdict::expected_failure,
          fmt::format("{}: known failure ({}); observed: {}", where, known->reason, raw.message)};
}

uint64_t run_seed() {
  if (const char* env = std::getenv("BK_CONFORMANCE_SEED"); env != nullptr && *env != '\0') {
    return std::strtoull(env, nullptr, 10);
  }
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace bk::conformance
