// SPDX-License-Identifier: MIT
#pragma once
// Llama-family model graphs from a GGUF file's header: the hyperparameters from its metadata, the
// weights from its tensor infos (names, shapes and types as the file stores them), and a graph
// that evaluates a batch of tokens after others already in the KV cache.
//
// Architectures: llama (and mistral, which llama.cpp writes as llama or mistral), and qwen2
// (q/k/v biases, NeoX RoPE). Any other architecture is refused by its name. Grouped-query
// attention: query head h reads KV head h / (heads / kv_heads), as mul_mat broadcasts.
//
// The graph, per layer, as llama.cpp's (non-flash) attention computes it: RMS norm, q/k/v
// projections, RoPE on q and k, k and v written into the layer's KV cache at positions
// [past, past + tokens), attention of the batch over the cache's first past + tokens positions
// with a causal mask, output projection, residual; then the SiLU-gated feed-forward. The KV
// cache is a leaf per layer and per k/v, "cache_k_l0", "cache_v_l0", ..., [kv_dim, ctx] in
// kv_type: persistent state that lives with its layer, flagged weight so that it is placed like
// one. The writes into it are outputs listed before the logits, which orders each write before
// the reads of its cache (GraphBuilder orders outputs depth-first, in order).
//
// Inputs: "tokens" (I32 [tokens]), "positions" (I32 [tokens], past + i) and "mask" (F32 [past +
// tokens, tokens]: 0 where key position j <= past + i, -inf above); llama_input_values() gives
// them. Output: "result_output", the logits, F32 [vocab, 1] for the batch's last token, or
// [vocab, tokens] with all_logits.
//
// Errors: bk::Error(invalid_argument) naming the file and what is missing or wrong (an unknown
// architecture, a missing key or tensor, a tensor of the wrong shape, a weight type bk has no
// kernels for, a batch that does not fit the context).

#include <cstdint>
#include <string>
#include <vector>

#include "bk/graph.h"
#include "probe/gguf.h"

namespace bk {

struct LlamaParams {
  std::string arch;  // "llama", "mistral", "qwen2"
  std::string name;  // general.name, or the file's name
  int64_t layers = 0;
  int64_t embd = 0;  // the residual stream's width
  int64_t ff = 0;    // the feed-forward's inner width
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  int64_t rope_dims = 0;  // leading elements of each head that rotate
  int64_t vocab = 0;
  int64_t train_ctx = 0;  // the context the model was trained for
  float rope_base = 10000.0f;
  float norm_eps = 1e-5f;
  bool neox_rope = false;  // qwen2: pairs (k, k + n/2), not (2k, 2k + 1)
  bool qkv_bias = false;   // qwen2

  int64_t kv_dim() const noexcept { return kv_heads * head_dim; }
  int64_t q_dim() const noexcept { return heads * head_dim; }
};

// The hyperparameters of `file`, checked for consistency (heads divisible by kv heads, even
// RoPE dims, ...). Throws as above.
LlamaParams llama_params(const GgufFile& file);

struct LlamaShape {
  int64_t tokens = 1;  // evaluated in this graph
  int64_t past = 0;    // already in the KV cache
  int64_t ctx = 0;     // the KV cache's capacity, at least past + tokens
  DType kv_type = DType::F16;
  bool all_logits = false;  // logits for every token, not only the last

  int64_t kv_len() const noexcept { return past + tokens; }
};

struct LlamaGraph {
  Graph graph;
  std::vector<Tensor*> kv_cache;  // per layer: k then v
};

LlamaGraph build_llama_graph(const GgufFile& file, const LlamaParams& params, const LlamaShape& shape);

// Which part of the model a leaf belongs to, for placing and planning by layer: the layer of a
// "blk.N." weight or a KV cache tensor, kTokenEmbedding for the token embedding (read by
// get_rows, kept in host memory as llama.cpp does), kOutputLayer for output_norm and output
// (the layer after the last), kNotModel for anything else.
inline constexpr int kTokenEmbedding = -1;
inline constexpr int kNotModel = -2;
int llama_layer_of(const Tensor& leaf, const LlamaParams& params);
inline int llama_output_layer(const LlamaParams& params) { return static_cast<int>(params.layers); }

// Values for the graph's inputs, in logical order: the token ids (their count must be
// shape.tokens, each in [0, vocab)), positions past..past+tokens-1 and the causal mask.
struct LlamaInputs {
  std::vector<double> tokens, positions, mask;
};
LlamaInputs llama_input_values(const LlamaParams& params, const LlamaShape& shape,
                               const std::vector<int32_t>& tokens);

}  // namespace bk
