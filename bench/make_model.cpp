// SPDX-License-Identifier: MIT
// bk_make_model: writes a llama-architecture GGUF file of a chosen size with random weights, for
// measuring generation speed on models larger than the caches (scripts/bench-model.sh). The
// weights are random (uniform, scaled by 1/sqrt(K)) and quantized with bk::quantize_row; the
// model computes nothing meaningful, only the same work as a real one of its shape.
//
//   bk_make_model OUT.gguf TYPE [LAYERS EMBD FF HEADS KV_HEADS VOCAB]
//   TYPE: f32, f16, q8_0, q4_0, q4_k (q4_k with q6_k for output, as Q4_K_M files keep it)
//   defaults: 16 layers, embedding 2048, feed-forward 5632, 32 heads, 4 KV heads, vocab 32000
//   (about 0.85 G parameters: 0.9 GB in q8_0, 0.48 GB in q4_0 / q4_k)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "bk/dtype.h"
#include "bk/quant.h"

namespace {

struct Shape {
  int64_t layers = 16, embd = 2048, ff = 5632, heads = 32, kv_heads = 4, vocab = 32000;
};

struct TensorInfo {
  std::string name;
  int64_t ne0 = 1, ne1 = 1;
  bk::DType type = bk::DType::F32;
  uint64_t offset = 0;
  uint64_t bytes() const {
    return static_cast<uint64_t>(ne0 / bk::dtype_block(type) * ne1) * bk::dtype_size(type);
  }
};

// ggml's type ids for the dtypes bk stores.
uint32_t ggml_type_id(bk::DType t) {
  switch (t) {
    case bk::DType::F16:
      return 1;
    case bk::DType::Q4_0:
      return 2;
    case bk::DType::Q8_0:
      return 8;
    case bk::DType::Q4_K:
      return 12;
    case bk::DType::Q6_K:
      return 14;
    default:
      return 0;  // F32
  }
}

class Writer {
 public:
  explicit Writer(std::FILE* f) : f_(f) {}
  void raw(const void* p, size_t n) {
    if (std::fwrite(p, 1, n, f_) != n) fail("write failed (disk full?)");
    at_ += n;
  }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void str(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void kv_u32(const std::string& k, uint32_t v) {
    str(k);
    u32(4);
    u32(v);
  }
  void kv_f32(const std::string& k, float v) {
    str(k);
    u32(6);
    raw(&v, 4);
  }
  void kv_str(const std::string& k, const std::string& v) {
    str(k);
    u32(8);
    str(v);
  }
  // An array of `n` values of `type` (GGUF value type ids), each written by `item(i)`.
  template <typename F>
  void kv_array(const std::string& k, uint32_t type, int64_t n, F item) {
    str(k);
    u32(9);
    u32(type);
    u64(static_cast<uint64_t>(n));
    for (int64_t i = 0; i < n; ++i) item(i);
  }
  void pad(uint64_t alignment) {
    static const char zeros[64] = {};
    while (at_ % alignment != 0) raw(zeros, 1);
  }
  [[noreturn]] static void fail(const char* what) {
    std::fprintf(stderr, "bk_make_model: %s\n", what);
    std::exit(1);
  }

 private:
  std::FILE* f_;
  uint64_t at_ = 0;
};

std::vector<TensorInfo> tensors(const Shape& s, bk::DType type) {
  const bk::DType out_type = type == bk::DType::Q4_K ? bk::DType::Q6_K : type;
  const int64_t head_dim = s.embd / s.heads, kv = s.kv_heads * head_dim;
  std::vector<TensorInfo> t = {{"token_embd.weight", s.embd, s.vocab, type}};
  for (int64_t l = 0; l < s.layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    t.push_back({b + "attn_norm.weight", s.embd, 1, bk::DType::F32});
    t.push_back({b + "attn_q.weight", s.embd, s.embd, type});
    t.push_back({b + "attn_k.weight", s.embd, kv, type});
    t.push_back({b + "attn_v.weight", s.embd, kv, type});
    t.push_back({b + "attn_output.weight", s.embd, s.embd, type});
    t.push_back({b + "ffn_norm.weight", s.embd, 1, bk::DType::F32});
    t.push_back({b + "ffn_gate.weight", s.embd, s.ff, type});
    t.push_back({b + "ffn_up.weight", s.embd, s.ff, type});
    t.push_back({b + "ffn_down.weight", s.ff, s.embd, type});
  }
  t.push_back({"output_norm.weight", s.embd, 1, bk::DType::F32});
  t.push_back({"output.weight", s.embd, s.vocab, out_type});
  uint64_t offset = 0;
  for (TensorInfo& i : t) {
    i.offset = offset;
    offset += (i.bytes() + 31) / 32 * 32;
  }
  return t;
}

// xorshift64*: fast, and the same file for the same arguments.
float next_uniform(uint64_t& state) {
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return static_cast<float>((state * 2685821657736338717ull) >> 40) / static_cast<float>(1 << 24) * 2 - 1;
}

void write_data(Writer& w, const TensorInfo& t, uint64_t& state) {
  std::vector<float> row(static_cast<size_t>(t.ne0));
  std::vector<unsigned char> packed(static_cast<size_t>(t.bytes() / static_cast<uint64_t>(t.ne1)));
  const bool norm = t.ne1 == 1 && t.type == bk::DType::F32;
  const float scale = 1.0f / std::sqrt(static_cast<float>(t.ne0));
  for (int64_t r = 0; r < t.ne1; ++r) {
    for (float& x : row) x = norm ? 1.0f + 0.1f * next_uniform(state) : scale * next_uniform(state);
    bk::quantize_row(t.type, row.data(), packed.data(), t.ne0);
    w.raw(packed.data(), packed.size());
  }
  w.pad(32);
}

// A SentencePiece-style vocabulary of the model's size, so that other implementations (llama.cpp)
// load the file too: <unk>, <s>, </s>, the 256 byte tokens, then fillers.
std::string token_text(int64_t i) {
  if (i == 0) return "<unk>";
  if (i == 1) return "<s>";
  if (i == 2) return "</s>";
  if (i < 3 + 256) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", static_cast<unsigned>(i - 3));
    return hex;
  }
  return "t" + std::to_string(i);
}

void write_vocabulary(Writer& w, int64_t vocab) {
  w.kv_str("tokenizer.ggml.model", "llama");
  w.kv_array("tokenizer.ggml.tokens", 8, vocab, [&](int64_t i) { w.str(token_text(i)); });
  w.kv_array("tokenizer.ggml.scores", 6, vocab, [&](int64_t i) {
    const float score = -static_cast<float>(i);
    w.raw(&score, 4);
  });
  // 2 unknown, 3 control, 6 byte, 1 normal.
  w.kv_array("tokenizer.ggml.token_type", 5, vocab, [&](int64_t i) {
    w.u32(i == 0 ? 2u : i < 3 ? 3u : i < 3 + 256 ? 6u : 1u);
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 9) {
    std::fprintf(
        stderr,
        "usage: bk_make_model OUT.gguf f32|f16|q8_0|q4_0|q4_k [LAYERS EMBD FF HEADS KV_HEADS VOCAB]\n");
    return 2;
  }
  const std::optional<bk::DType> type = bk::dtype_from_name(argv[2]);
  if (!type || (*type != bk::DType::F32 && *type != bk::DType::F16 && *type != bk::DType::Q8_0 &&
                *type != bk::DType::Q4_0 && *type != bk::DType::Q4_K)) {
    std::fprintf(stderr, "bk_make_model: type '%s' is not f32, f16, q8_0, q4_0 or q4_k\n", argv[2]);
    return 2;
  }
  Shape s;
  if (argc == 9) {
    int64_t* fields[] = {&s.layers, &s.embd, &s.ff, &s.heads, &s.kv_heads, &s.vocab};
    for (int i = 0; i < 6; ++i) *fields[i] = std::atoll(argv[3 + i]);
  }
  if (s.layers < 1 || s.heads < 1 || s.kv_heads < 1 || s.embd % s.heads != 0 || s.heads % s.kv_heads != 0 ||
      s.embd % 256 != 0 || s.ff % 256 != 0 || s.vocab < 3 + 256) {
    std::fprintf(stderr,
                 "bk_make_model: the shape must have embedding and feed-forward multiples of 256, "
                 "heads dividing the embedding, KV heads dividing the heads, and a vocabulary of at least "
                 "259 (3 specials and 256 bytes)\n");
    return 2;
  }
  std::FILE* f = std::fopen(argv[1], "wb");
  if (f == nullptr) Writer::fail("cannot open the output file");
  Writer w(f);
  const std::vector<TensorInfo> infos = tensors(s, *type);
  w.raw("GGUF", 4);
  w.u32(3);
  w.u64(infos.size());
  w.u64(14);
  w.kv_str("general.architecture", "llama");
  w.kv_str("general.name", std::string("bk-bench-") + argv[2]);
  w.kv_u32("llama.context_length", 4096);
  w.kv_u32("llama.embedding_length", static_cast<uint32_t>(s.embd));
  w.kv_u32("llama.block_count", static_cast<uint32_t>(s.layers));
  w.kv_u32("llama.feed_forward_length", static_cast<uint32_t>(s.ff));
  w.kv_u32("llama.attention.head_count", static_cast<uint32_t>(s.heads));
  w.kv_u32("llama.attention.head_count_kv", static_cast<uint32_t>(s.kv_heads));
  w.kv_f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  w.kv_u32("llama.vocab_size", static_cast<uint32_t>(s.vocab));
  write_vocabulary(w, s.vocab);
  for (const TensorInfo& t : infos) {
    w.str(t.name);
    w.u32(t.ne1 == 1 ? 1 : 2);
    w.u64(static_cast<uint64_t>(t.ne0));
    if (t.ne1 != 1) w.u64(static_cast<uint64_t>(t.ne1));
    w.u32(ggml_type_id(t.type));
    w.u64(t.offset);
  }
  w.pad(32);
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (const TensorInfo& t : infos) write_data(w, t, state);
  if (std::fclose(f) != 0) Writer::fail("closing the output file failed");
  return 0;
}
