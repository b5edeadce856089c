// SPDX-License-Identifier: MIT
// Whole blocks, as models use the ops together: an MLP and a self-attention layer. Their
// limits add up the per-op limits along the deepest chain of stages (verify::graph_limit), since
// independent errors of stages in series add up. Weights are small (like trained ones) so that
// activations stay around 1 and the softmax is not saturated, which would make it amplify errors.
#include "cases_util.h"

namespace bk::conformance {
namespace {

constexpr int64_t kEmbd = 64, kHeads = 4, kHeadDim = 16, kTokens = 7, kFf = 160;

Graph mlp(DType wtype) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {kEmbd, kTokens, 1, 1}, "x");
  Tensor& norm = g.weight(DType::F32, {kEmbd, 1, 1, 1}, "norm");
  Tensor& up = g.weight(wtype, {kEmbd, kFf, 1, 1}, "up");
  Tensor& gate = g.weight(wtype, {kEmbd, kFf, 1, 1}, "gate");
  Tensor& down = g.weight(wtype, {kFf, kEmbd, 1, 1}, "down");
  Tensor& h = ops::mul(g, ops::rms_norm(g, x, 1e-5f), norm);
  Tensor& act = ops::mul(g, ops::silu(g, ops::mul_mat(g, gate, h)), ops::mul_mat(g, up, h));
  Tensor& r = ops::add(g, x, ops::mul_mat(g, down, act));
  return g.build({&r});
}

// Causal self-attention over kTokens tokens: q, k, v projections, rope, scores, softmax,
// weighted sum, output projection and the residual.
Graph attention(DType wtype) {
  GraphBuilder g;
  Tensor& x = g.input(DType::F32, {kEmbd, kTokens, 1, 1}, "x");
  Tensor& pos = g.input(DType::I32, {kTokens, 1, 1, 1}, "pos");
  Tensor& mask = g.input(DType::F32, {kTokens, kTokens, 1, 1}, "mask");
  auto project = [&](const char* name) -> Tensor& {
    Tensor& w = g.weight(wtype, {kEmbd, kEmbd, 1, 1}, name);
    return ops::reshape(g, ops::mul_mat(g, w, x), {kHeadDim, kHeads, kTokens, 1});
  };
  Tensor& q = ops::rope(g, project("wq"), pos, kHeadDim, RopeMode::neox, 10000.0f);
  Tensor& k = ops::rope(g, project("wk"), pos, kHeadDim, RopeMode::neox, 10000.0f);
  Tensor& v = project("wv");
  Tensor& scores = ops::mul_mat(g, ops::permute(g, k, {0, 2, 1, 3}), ops::permute(g, q, {0, 2, 1, 3}));
  Tensor& probs = ops::soft_max(g, scores, &mask, 0.25f);       // [kv tokens, q tokens, heads]
  Tensor& vt = ops::cont(g, ops::permute(g, v, {1, 2, 0, 3}));  // [kv tokens, head_dim, heads]
  Tensor& heads = ops::mul_mat(g, vt, probs);                   // [head_dim, q tokens, heads]
  Tensor& merged =
      ops::reshape(g, ops::cont(g, ops::permute(g, heads, {0, 2, 1, 3})), {kEmbd, kTokens, 1, 1});
  Tensor& wo = g.weight(wtype, {kEmbd, kEmbd, 1, 1}, "wo");
  Tensor& r = ops::add(g, x, ops::mul_mat(g, wo, merged));
  return g.build({&r});
}

using Fills = std::map<std::string, LeafFill>;

Fills small_weights(std::initializer_list<const char*> names) {
  Fills f;
  for (const char* n : names) f[n] = magnitudes(0.02, 0.2);
  return f;
}

Fills with(Fills a, const Fills& b) {
  a.insert(b.begin(), b.end());
  return a;
}

}  // namespace

void add_graph_cases(std::vector<Case>& out) {
  for (DType w : kFloatTypes) {
    out.push_back(make_case(
        fmt::format("graph_{}_mlp_{}x{}", dt(w), kEmbd, kTokens), "graph", w, [w] { return mlp(w); },
        small_weights({"up", "gate", "down"})));
    out.push_back(make_case(
        fmt::format("graph_{}_attention_{}x{}", dt(w), kEmbd, kTokens), "graph", w,
        [w] { return attention(w); },
        with(small_weights({"wq", "wk", "wv", "wo"}),
             {{"pos", integers(0, 4096)}, {"mask", causal_mask()}})));
  }
}

}  // namespace bk::conformance
