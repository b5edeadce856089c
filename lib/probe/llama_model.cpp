// SPDX-License-Identifier: MIT
#include "probe/llama_model.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "bk/error.h"
#include "bk/ops.h"

namespace bk {
namespace {

[[noreturn]] void fail(const GgufFile& file, const std::string& what) {
  throw Error(ErrorCode::invalid_argument, fmt::format("{}: {}", file.path(), what));
}

bool known_arch(const std::string& arch) { return arch == "llama" || arch == "mistral" || arch == "qwen2"; }

int64_t required(const GgufFile& file, const std::string& key) {
  const std::optional<uint64_t> v = file.get_uint(key);
  if (!v) fail(file, fmt::format("the metadata has no '{}', which a {} model needs", key, "llama-family"));
  if (*v == 0 || *v > (1u << 30)) fail(file, fmt::format("'{}' is {}; it must be in [1, 2^30]", key, *v));
  return static_cast<int64_t>(*v);
}

int64_t optional_count(const GgufFile& file, const std::string& key, int64_t otherwise) {
  return file.find(key) != nullptr ? required(file, key) : otherwise;
}

float optional_float(const GgufFile& file, const std::string& key, float otherwise) {
  const std::optional<double> v = file.get_float(key);
  if (!v) return otherwise;
  if (!std::isfinite(*v) || *v <= 0 || *v > std::numeric_limits<float>::max())
    fail(file, fmt::format("'{}' is {}; it must be a positive float", key, *v));
  return static_cast<float>(*v);
}

void check_consistent(const GgufFile& file, const LlamaParams& p) {
  if (p.heads % p.kv_heads != 0) {
    fail(file, fmt::format("{} attention heads are not a multiple of {} KV heads (grouped-query attention "
                           "shares each KV head among heads / kv_heads query heads)",
                           p.heads, p.kv_heads));
  }
  if (p.rope_dims % 2 != 0 || p.rope_dims > p.head_dim) {
    fail(file, fmt::format("RoPE rotates {} dimensions of a head of {}; it must be even and at most the head",
                           p.rope_dims, p.head_dim));
  }
}

const GgufTensor& file_tensor(const GgufFile& file, const std::string& name,
                              std::initializer_list<int64_t> ne) {
  const GgufTensor* t = file.tensor(name);
  if (t == nullptr) fail(file, fmt::format("the model has no tensor '{}'", name));
  Shape want{1, 1, 1, 1};
  size_t i = 0;
  for (int64_t n : ne) want[i++] = n;
  for (size_t d = 0; d < 4; ++d) {
    if (t->ne[d] != want[d]) {
      fail(file,
           fmt::format("tensor '{}' is [{}, {}, {}, {}]; the metadata says it is [{}, {}, {}, {}]", name,
                       t->ne[0], t->ne[1], t->ne[2], t->ne[3], want[0], want[1], want[2], want[3]));
    }
  }
  return *t;
}

struct Builder {
  const GgufFile& file;
  const LlamaParams& p;
  const LlamaShape& s;
  GraphBuilder g;
  Tensor* positions = nullptr;
  Tensor* mask = nullptr;
  std::vector<Tensor*> cache_writes;
  std::vector<Tensor*> kv_cache;

  Tensor& weight(const std::string& name, std::initializer_list<int64_t> ne) {
    const GgufTensor& t = file_tensor(file, name, ne);
    const std::optional<DType> type = gguf_dtype(t.type);
    if (!type) {
      fail(file, fmt::format("tensor '{}' is stored as {}, a type bk has no kernels for (bk reads F32, F16, "
                             "BF16, Q8_0, Q4_0, Q4_K and Q6_K)",
                             name, t.type.name));
    }
    return g.weight(*type, {t.ne[0], t.ne[1], t.ne[2], t.ne[3]}, name);
  }
  static std::string blk(int64_t layer, const char* what) { return fmt::format("blk.{}.{}", layer, what); }
  static Tensor& named(Tensor& t, const std::string& what, int64_t layer) {
    t.name = fmt::format("{}-{}", what, layer);
    return t;
  }

  Tensor& norm(Tensor& x, const std::string& weight_name, const char* what, int64_t layer) {
    Tensor& n = named(ops::rms_norm(g, x, p.norm_eps), what, layer);
    return ops::mul(g, n, weight(weight_name, {p.embd}));
  }

  // w x (+ bias), named like llama.cpp's graph.
  Tensor& project(Tensor& x, int64_t layer, const char* what, const char* w, const char* bias, int64_t rows) {
    Tensor* r = &named(ops::mul_mat(g, weight(blk(layer, w), {p.embd, rows}), x), what, layer);
    if (p.qkv_bias) r = &ops::add(g, *r, weight(blk(layer, bias), {rows}));
    return *r;
  }

  Tensor& rotate(Tensor& x, int64_t heads, const char* what, int64_t layer) {
    Tensor& h = ops::reshape(g, x, {p.head_dim, heads, s.tokens, 1});
    const RopeMode mode = p.neox_rope ? RopeMode::neox : RopeMode::normal;
    return named(ops::rope(g, h, *positions, static_cast<int>(p.rope_dims), mode, p.rope_base), what, layer);
  }

  // Writes `x` ([kv_dim, tokens] elements) at positions [past, past + tokens) of a new cache
  // leaf, and returns the cache's first kv_len positions as [head_dim, kv_heads, kv_len].
  Tensor& cache(Tensor& x, const char* kind, int64_t layer) {
    Tensor& c = g.weight(s.kv_type, {p.kv_dim(), s.ctx, 1, 1}, fmt::format("cache_{}_l{}", kind, layer));
    kv_cache.push_back(&c);
    const size_t elt = dtype_size(s.kv_type);
    const size_t row = elt * static_cast<size_t>(p.kv_dim());
    Tensor& slot = ops::view(g, c, {p.kv_dim(), s.tokens, 1, 1}, {elt, row, row * s.tokens, row * s.tokens},
                             row * static_cast<size_t>(s.past));
    cache_writes.push_back(&named(ops::cpy(g, x, slot), fmt::format("{}_cache_write", kind), layer));
    return ops::view(g, c, {p.head_dim, p.kv_heads, s.kv_len(), 1},
                     {elt, elt * static_cast<size_t>(p.head_dim), row, row * s.kv_len()}, 0);
  }

  Tensor& attention(Tensor& x, int64_t layer) {
    Tensor& n = norm(x, blk(layer, "attn_norm.weight"), "attn_norm", layer);
    Tensor& q =
        rotate(project(n, layer, "Qcur", "attn_q.weight", "attn_q.bias", p.q_dim()), p.heads, "Qrope", layer);
    Tensor& k = rotate(project(n, layer, "Kcur", "attn_k.weight", "attn_k.bias", p.kv_dim()), p.kv_heads,
                       "Krope", layer);
    Tensor& v = project(n, layer, "Vcur", "attn_v.weight", "attn_v.bias", p.kv_dim());
    Tensor& keys = named(ops::cont(g, ops::permute(g, cache(k, "k", layer), {0, 2, 1, 3})), "k", layer);
    Tensor& values = named(ops::cont(g, ops::permute(g, cache(v, "v", layer), {1, 2, 0, 3})), "v", layer);
    Tensor& qp = named(ops::cont(g, ops::permute(g, q, {0, 2, 1, 3})), "q", layer);
    Tensor& kq = named(ops::mul_mat(g, keys, qp), "kq", layer);  // [kv_len, tokens, heads]
    const float scale = 1.0f / std::sqrt(static_cast<float>(p.head_dim));
    Tensor& sm = named(ops::soft_max(g, kq, mask, scale), "kq_soft_max", layer);
    Tensor& kqv = named(ops::mul_mat(g, values, sm), "kqv", layer);  // [head_dim, tokens, heads]
    Tensor& merged = named(ops::cont(g, ops::permute(g, kqv, {0, 2, 1, 3})), "kqv_merged", layer);
    Tensor& flat = ops::reshape(g, merged, {p.q_dim(), s.tokens, 1, 1});
    Tensor& out = named(ops::mul_mat(g, weight(blk(layer, "attn_output.weight"), {p.q_dim(), p.embd}), flat),
                        "kqv_out", layer);
    return named(ops::add(g, x, out), "ffn_inp", layer);
  }

  Tensor& feed_forward(Tensor& x, int64_t layer) {
    Tensor& n = norm(x, blk(layer, "ffn_norm.weight"), "ffn_norm", layer);
    Tensor& gate =
        named(ops::mul_mat(g, weight(blk(layer, "ffn_gate.weight"), {p.embd, p.ff}), n), "ffn_gate", layer);
    Tensor& up =
        named(ops::mul_mat(g, weight(blk(layer, "ffn_up.weight"), {p.embd, p.ff}), n), "ffn_up", layer);
    Tensor& par = named(ops::mul(g, ops::silu(g, gate), up), "ffn_gate_par", layer);
    Tensor& down =
        named(ops::mul_mat(g, weight(blk(layer, "ffn_down.weight"), {p.ff, p.embd}), par), "ffn_out", layer);
    return named(ops::add(g, x, down), "l_out", layer);
  }

  // The hidden states the logits are computed from: the last token's, or all.
  Tensor& logits_rows(Tensor& x) {
    if (s.all_logits || s.tokens == 1) return x;
    const size_t row = sizeof(float) * static_cast<size_t>(p.embd);
    return ops::view(g, x, {p.embd, 1, 1, 1}, {sizeof(float), row, row, row},
                     row * static_cast<size_t>(s.tokens - 1));
  }

  LlamaGraph build() {
    Tensor& tokens = g.input(DType::I32, {s.tokens, 1, 1, 1}, "tokens");
    positions = &g.input(DType::I32, {s.tokens, 1, 1, 1}, "positions");
    mask = &g.input(DType::F32, {s.kv_len(), s.tokens, 1, 1}, "mask");
    Tensor& embd = weight("token_embd.weight", {p.embd, p.vocab});
    Tensor* x = &ops::get_rows(g, embd, tokens);
    x->name = "inp_embd";
    for (int64_t l = 0; l < p.layers; ++l) x = &feed_forward(attention(*x, l), l);
    Tensor& n = ops::rms_norm(g, logits_rows(*x), p.norm_eps);
    n.name = "result_norm";
    Tensor& nw = ops::mul(g, n, weight("output_norm.weight", {p.embd}));
    // Models with tied embeddings have no output.weight and project with token_embd.
    Tensor& w = file.tensor("output.weight") != nullptr ? weight("output.weight", {p.embd, p.vocab}) : embd;
    Tensor& logits = ops::mul_mat(g, w, nw);
    logits.name = "result_output";
    std::vector<Tensor*> outputs = cache_writes;
    outputs.push_back(&logits);
    return {g.build(outputs), std::move(kv_cache)};
  }
};

void check_shape(const GgufFile& file, const LlamaShape& s) {
  if (s.tokens < 1 || s.past < 0 || s.ctx < s.kv_len()) {
    fail(file, fmt::format("a batch of {} tokens after {} cached needs a context of at least {}, got {}",
                           s.tokens, s.past, s.kv_len(), s.ctx));
  }
  if (s.ctx > (int64_t{1} << 24) || s.tokens > (int64_t{1} << 20))
    fail(file, fmt::format("context {} or batch {} is beyond 2^24 / 2^20 tokens", s.ctx, s.tokens));
  if (!dtype_traits(s.kv_type).is_float)
    fail(file, fmt::format("the KV cache must be f32, f16 or bf16, not {}", dtype_name(s.kv_type)));
}

}  // namespace

LlamaParams llama_params(const GgufFile& file) {
  LlamaParams p;
  const std::optional<std::string> arch = file.get_string("general.architecture");
  if (!arch) fail(file, "the metadata has no 'general.architecture'; is this a model file?");
  if (!known_arch(*arch)) {
    fail(file,
         fmt::format("architecture '{}' is not supported: bk builds graphs for llama, mistral and qwen2",
                     *arch));
  }
  p.arch = *arch;
  p.name = file.get_string("general.name").value_or(file.path());
  const std::string k = p.arch + ".";
  p.layers = required(file, k + "block_count");
  p.embd = required(file, k + "embedding_length");
  p.ff = required(file, k + "feed_forward_length");
  p.heads = required(file, k + "attention.head_count");
  p.kv_heads = optional_count(file, k + "attention.head_count_kv", p.heads);
  if (p.embd % p.heads != 0 && file.find(k + "attention.key_length") == nullptr)
    fail(file, fmt::format("embedding {} is not a multiple of {} heads and there is no key_length", p.embd,
                           p.heads));
  p.head_dim = optional_count(file, k + "attention.key_length", p.embd / p.heads);
  p.rope_dims = optional_count(file, k + "rope.dimension_count", p.head_dim);
  p.train_ctx = optional_count(file, k + "context_length", 4096);
  p.rope_base = optional_float(file, k + "rope.freq_base", 10000.0f);
  p.norm_eps = optional_float(file, k + "attention.layer_norm_rms_epsilon", 1e-5f);
  p.neox_rope = p.arch == "qwen2";
  p.qkv_bias = p.arch == "qwen2";
  // The vocabulary's size: the key where the writer gave it, else the embedding's rows.
  if (file.find(k + "vocab_size") != nullptr) {
    p.vocab = required(file, k + "vocab_size");
  } else {
    const GgufTensor* embd = file.tensor("token_embd.weight");
    if (embd == nullptr) fail(file, "the model has no tensor 'token_embd.weight'");
    p.vocab = embd->ne[1];
  }
  check_consistent(file, p);
  return p;
}

LlamaGraph build_llama_graph(const GgufFile& file, const LlamaParams& params, const LlamaShape& shape) {
  check_shape(file, shape);
  Builder b{file, params, shape, GraphBuilder{}};
  return b.build();
}

int llama_layer_of(const Tensor& leaf, const LlamaParams& params) {
  const std::string_view name = leaf.name;
  const auto number_after = [&](std::string_view prefix) -> int {
    if (!name.starts_with(prefix)) return kNotModel;
    int layer = 0;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    const auto [end, ec] = std::from_chars(first, last, layer);
    if (ec != std::errc{} || end == first || layer < 0 || layer >= params.layers) return kNotModel;
    return layer;
  };
  if (name == "token_embd.weight") return kTokenEmbedding;
  if (name == "output_norm.weight" || name == "output.weight") return llama_output_layer(params);
  for (std::string_view prefix : {"blk.", "cache_k_l", "cache_v_l"}) {
    if (const int layer = number_after(prefix); layer != kNotModel) return layer;
  }
  return kNotModel;
}

LlamaInputs llama_input_values(const LlamaParams& params, const LlamaShape& shape,
                               const std::vector<int32_t>& tokens) {
  if (static_cast<int64_t>(tokens.size()) != shape.tokens) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{} token ids for a graph of {} tokens", tokens.size(), shape.tokens));
  }
  LlamaInputs in;
  for (int32_t t : tokens) {
    if (t < 0 || t >= params.vocab) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("token id {} is outside the vocabulary [0, {})", t, params.vocab));
    }
    in.tokens.push_back(t);
  }
  const double minus_inf = -std::numeric_limits<double>::infinity();
  in.mask.reserve(static_cast<size_t>(shape.kv_len() * shape.tokens));
  for (int64_t i = 0; i < shape.tokens; ++i) {
    in.positions.push_back(static_cast<double>(shape.past + i));
    for (int64_t j = 0; j < shape.kv_len(); ++j) in.mask.push_back(j <= shape.past + i ? 0.0 : minus_inf);
  }
  return in;
}

}  // namespace bk
