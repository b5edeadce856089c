// SPDX-License-Identifier: MIT
#include "probe/model_graphs.h"

#include <fmt/format.h>

#include <cmath>

#include "bk/error.h"
#include "bk/ops.h"
#include "bk/strings.h"

namespace bk {
namespace {

constexpr float kNormEps = 1e-5f;
constexpr float kRopeBase = 10000.0f;

Tensor& named(Tensor& t, std::string name) {
  t.name = std::move(name);
  return t;
}

std::string layer_name(const char* what, int layer) { return fmt::format("{}-{}", what, layer); }

struct Model {
  GraphBuilder g;
  ModelParams p;
  Tensor* positions = nullptr;
  Tensor* mask = nullptr;

  int64_t hidden() const { return p.hidden; }
  int64_t batch() const { return p.batch; }
  Tensor& matrix(int64_t k, int64_t m, const std::string& name) {
    return g.weight(p.dtype, {k, m, 1, 1}, name);
  }
  Tensor& vector(int64_t n, const std::string& name) { return g.weight(DType::F32, {n, 1, 1, 1}, name); }
  std::string blk(int layer, const char* what) const { return fmt::format("blk.{}.{}", layer, what); }

  void attention_inputs() {
    positions = &g.input(DType::I32, {batch(), 1, 1, 1}, "positions");
    mask = &g.input(DType::F32, {batch(), batch(), 1, 1}, "mask");
  }

  Tensor& norm(Tensor& x, const std::string& weight, const char* what, int layer) {
    Tensor& n = named(ops::rms_norm(g, x, kNormEps), layer_name(what, layer));
    return named(ops::mul(g, n, vector(hidden(), weight)), layer_name(what, layer) + "_w");
  }

  // [hidden, batch] -> rotated [head_dim, heads, batch]
  Tensor& rotated(Tensor& x, const char* weight, const char* what, int layer) {
    Tensor& proj =
        named(ops::mul_mat(g, matrix(hidden(), hidden(), blk(layer, weight)), x), layer_name(what, layer));
    Tensor& heads = ops::reshape(g, proj, {p.head_dim(), p.heads, batch(), 1});
    return named(ops::rope(g, heads, *positions, p.head_dim(), RopeMode::normal, kRopeBase),
                 layer_name(what, layer) + "_rope");
  }

  Tensor& attention(Tensor& x, int layer) {
    Tensor& n = norm(x, blk(layer, "attn_norm.weight"), "attn_norm", layer);
    Tensor& q = rotated(n, "attn_q.weight", "Qcur", layer);
    Tensor& k = rotated(n, "attn_k.weight", "Kcur", layer);
    Tensor& v = named(ops::mul_mat(g, matrix(hidden(), hidden(), blk(layer, "attn_v.weight")), n),
                      layer_name("Vcur", layer));
    Tensor& qp = named(ops::cont(g, ops::permute(g, q, {0, 2, 1, 3})), layer_name("q", layer));
    Tensor& kp = named(ops::cont(g, ops::permute(g, k, {0, 2, 1, 3})), layer_name("k", layer));
    Tensor& kq = named(ops::mul_mat(g, kp, qp), layer_name("kq", layer));
    const float scale = 1.0f / std::sqrt(static_cast<float>(p.head_dim()));
    Tensor& sm = named(ops::soft_max(g, kq, mask, scale), layer_name("kq_soft_max", layer));
    Tensor& v3 = ops::reshape(g, v, {p.head_dim(), p.heads, batch(), 1});
    Tensor& vt = named(ops::cont(g, ops::permute(g, v3, {1, 2, 0, 3})), layer_name("v", layer));
    Tensor& kqv = named(ops::mul_mat(g, vt, sm), layer_name("kqv", layer));
    Tensor& merged = named(ops::cont(g, ops::permute(g, kqv, {0, 2, 1, 3})), layer_name("kqv_merged", layer));
    Tensor& flat = ops::reshape(g, merged, {hidden(), batch(), 1, 1});
    Tensor& out = named(ops::mul_mat(g, matrix(hidden(), hidden(), blk(layer, "attn_output.weight")), flat),
                        layer_name("kqv_out", layer));
    return named(ops::add(g, x, out), layer_name("ffn_inp", layer));
  }

  Tensor& feed_forward(Tensor& x, int layer) {
    Tensor& n = norm(x, blk(layer, "ffn_norm.weight"), "ffn_norm", layer);
    Tensor& gate = named(ops::mul_mat(g, matrix(hidden(), p.ff(), blk(layer, "ffn_gate.weight")), n),
                         layer_name("ffn_gate", layer));
    Tensor& act = named(ops::silu(g, gate), layer_name("ffn_silu", layer));
    Tensor& up = named(ops::mul_mat(g, matrix(hidden(), p.ff(), blk(layer, "ffn_up.weight")), n),
                       layer_name("ffn_up", layer));
    Tensor& par = named(ops::mul(g, act, up), layer_name("ffn_gate_par", layer));
    Tensor& down = named(ops::mul_mat(g, matrix(p.ff(), hidden(), blk(layer, "ffn_down.weight")), par),
                         layer_name("ffn_out", layer));
    return named(ops::add(g, x, down), layer_name("l_out", layer));
  }

  Tensor& mlp_layer(Tensor& x, int layer) {
    Tensor& up = named(ops::mul_mat(g, matrix(hidden(), p.ff(), blk(layer, "fc_up.weight")), x),
                       layer_name("fc_up", layer));
    Tensor& ub =
        named(ops::add(g, up, vector(p.ff(), blk(layer, "fc_up.bias"))), layer_name("fc_up_b", layer));
    Tensor& act = named(ops::gelu(g, ub), layer_name("fc_gelu", layer));
    Tensor& down = named(ops::mul_mat(g, matrix(p.ff(), hidden(), blk(layer, "fc_down.weight")), act),
                         layer_name("fc_down", layer));
    Tensor& db = named(ops::add(g, down, vector(hidden(), blk(layer, "fc_down.bias"))),
                       layer_name("fc_down_b", layer));
    return named(ops::add(g, x, db), layer_name("l_out", layer));
  }
};

Graph mlp(Model& m) {
  Tensor* x = &m.g.input(DType::F32, {m.hidden(), m.batch(), 1, 1}, "x");
  for (int l = 0; l < m.p.layers; ++l) x = &m.mlp_layer(*x, l);
  return m.g.build({x});
}

Graph attention(Model& m) {
  Tensor* x = &m.g.input(DType::F32, {m.hidden(), m.batch(), 1, 1}, "x");
  m.attention_inputs();
  for (int l = 0; l < m.p.layers; ++l) x = &m.attention(*x, l);
  return m.g.build({x});
}

Graph transformer(Model& m) {
  Tensor& tokens = m.g.input(DType::I32, {m.batch(), 1, 1, 1}, "tokens");
  m.attention_inputs();
  Tensor& embd = m.matrix(m.hidden(), m.p.vocab(), "token_embd.weight");
  Tensor* x = &named(ops::get_rows(m.g, embd, tokens), "inp_embd");
  for (int l = 0; l < m.p.layers; ++l) x = &m.feed_forward(m.attention(*x, l), l);
  Tensor& n = named(ops::rms_norm(m.g, *x, kNormEps), "result_norm");
  Tensor& nw = named(ops::mul(m.g, n, m.vector(m.hidden(), "output_norm.weight")), "result_norm_w");
  Tensor& out =
      named(ops::mul_mat(m.g, m.matrix(m.hidden(), m.p.vocab(), "output.weight"), nw), "result_output");
  return m.g.build({&out});
}

void check_range(const char* what, int value, int lo, int hi) {
  if (value < lo || value > hi) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--{} must be in [{}, {}], got {}", what, lo, hi, value));
  }
}

void check_params(const ModelParams& p) {
  check_range("layers", p.layers, 1, 1024);
  check_range("hidden", p.hidden, 2, 65536);
  check_range("heads", p.heads, 1, 1024);
  check_range("batch", p.batch, 1, 65536);
  if (p.hidden % p.heads != 0 || p.head_dim() % 2 != 0) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("--hidden {} must be a multiple of --heads {} with an even head size (RoPE rotates "
                    "pairs); try --hidden {}",
                    p.hidden, p.heads, p.heads * 64));
  }
  if (!dtype_traits(p.dtype).is_float) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--dtype must be f32, f16 or bf16 for weights, got {}", dtype_name(p.dtype)));
  }
}

}  // namespace

std::vector<std::string_view> model_graph_names() { return {"mlp", "attention", "transformer"}; }

Graph build_model_graph(std::string_view name, const ModelParams& params) {
  check_params(params);
  Model m{GraphBuilder{}, params};
  if (iequals(name, "mlp")) return mlp(m);
  if (iequals(name, "attention")) return attention(m);
  if (iequals(name, "transformer")) return transformer(m);
  throw Error(
      ErrorCode::invalid_argument,
      fmt::format("unknown graph '{}'; built-in graphs: mlp, attention, transformer (or use --graph-file)",
                  name));
}

}  // namespace bk
