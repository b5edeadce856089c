// SPDX-License-Identifier: MIT
#pragma once
// Built-in graphs for `bkctl sched`, the scheduler tests and the benchmark:
//
//   mlp          per layer: up projection + bias, GELU, down projection + bias, residual add
//   attention    per layer: RMS norm, q/k/v projections, RoPE on q and k, causal soft_max
//                attention over all heads, output projection, residual add
//   transformer  a llama-like decoder: token embedding (get_rows), then per layer the attention
//                block above and a SiLU-gated feed-forward block (RMS norm, gate and up
//                projections, silu(gate) * up, down projection, residual add), then a final
//                RMS norm and the output projection to the vocabulary
//
// Weights follow llama.cpp's GGUF names ("token_embd.weight", "blk.0.attn_q.weight", ...) and
// nodes its graph names ("attn_norm-0", "Qcur-0", "kq_soft_max-0", "l_out-0", "result_output"),
// so that --pin reads naturally. Matrices have the chosen dtype; norms and biases are F32.
// Inputs: "x" (F32 [hidden, batch]) or "tokens" (I32 [batch]), and "positions" (I32 [batch])
// and "mask" (F32 [batch, batch], causal) where attention needs them.

#include <string>
#include <string_view>
#include <vector>

#include "bk/dtype.h"
#include "bk/graph.h"

namespace bk {

struct ModelParams {
  int layers = 2;
  int hidden = 256;
  int heads = 4;
  int batch = 32;
  DType dtype = DType::F32;

  int head_dim() const noexcept { return hidden / heads; }
  int vocab() const noexcept { return 4 * hidden; }
  // llama's 8/3 ratio, rounded up to a multiple of 32.
  int ff() const noexcept { return (8 * hidden / 3 + 31) / 32 * 32; }
};

// "mlp", "attention", "transformer".
std::vector<std::string_view> model_graph_names();

// Throws Error(invalid_argument) for an unknown name or parameters out of range (the message
// says which and what is allowed).
Graph build_model_graph(std::string_view name, const ModelParams& params);

}  // namespace bk
