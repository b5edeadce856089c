// SPDX-License-Identifier: MIT
// llama-cpp-logits: the llama.cpp side of scripts/compare-llama-cpp.sh. Not part of bk's build
// or tests: the script compiles it against llama.cpp's public llama.h and static libraries.
//
//   llama-cpp-logits MODEL.gguf 1,260,300,42 OUT.json [threads=1]
//   LLAMA_CPP_LOGITS_KV=f32      an F32 KV cache instead of F16 (bk's)
//   LLAMA_CPP_LOGITS_VERBOSE=1   llama.cpp's info log on stderr (else warnings and errors only)
//
// Loads MODEL on the CPU only (no GPU layers, no op offload), makes a context with room for the
// tokens (flash attention off, F16 KV cache as bk's), evaluates the token ids in ONE batch at
// positions 0..n-1 of sequence 0 on an empty cache, logits requested for every position, and
// writes the same JSON shape as `bkctl bench --logits`:
//   {"schema": "llama.cpp.logits", ..., "tokens": [...],
//    "positions": [{"position": i, "token": t, "argmax": a, "logits": [vocab floats]}]}
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ggml.h"
#include "llama.h"

namespace {

bool g_verbose = false;

void log_callback(ggml_log_level level, const char* text, void*) {
  if (g_verbose || level == GGML_LOG_LEVEL_ERROR || level == GGML_LOG_LEVEL_WARN) std::fputs(text, stderr);
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "llama-cpp-logits: %s\n", what.c_str());
  std::exit(1);
}

std::vector<llama_token> parse_tokens(const char* text) {
  std::vector<llama_token> ids;
  const char* p = text;
  while (*p != '\0') {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(p, &end, 10);
    if (end == p || errno != 0 || v < 0 || v > 0x7fffffff) die(std::string("bad token list: ") + text);
    ids.push_back(static_cast<llama_token>(v));
    p = end;
    while (*p == ',' || *p == ' ') ++p;
  }
  if (ids.empty()) die("no token ids given");
  return ids;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: %s MODEL.gguf TOKEN,TOKEN,... OUT.json [threads]\n", argv[0]);
    return 2;
  }
  const char* model_path = argv[1];
  const std::vector<llama_token> tokens = parse_tokens(argv[2]);
  const char* out_path = argv[3];
  const int threads = argc == 5 ? std::atoi(argv[4]) : 1;
  g_verbose = std::getenv("LLAMA_CPP_LOGITS_VERBOSE") != nullptr;
  const auto n = static_cast<int32_t>(tokens.size());

  llama_log_set(log_callback, nullptr);
  llama_backend_init();

  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  llama_model* model = llama_model_load_from_file(model_path, mp);
  if (model == nullptr) die(std::string("could not load ") + model_path);
  const llama_vocab* vocab = llama_model_get_vocab(model);
  const int32_t n_vocab = llama_vocab_n_tokens(vocab);
  for (const llama_token t : tokens) {
    if (t >= n_vocab)
      die("token id " + std::to_string(t) + " is outside the vocabulary of " + std::to_string(n_vocab));
  }

  llama_context_params cp = llama_context_default_params();
  cp.n_ctx = static_cast<uint32_t>(std::max(n, 256));
  cp.n_batch = static_cast<uint32_t>(std::max(n, 512));
  cp.n_ubatch = cp.n_batch;  // one physical batch: the whole sequence in one graph, like bk
  cp.n_seq_max = 1;
  cp.n_threads = threads;
  cp.n_threads_batch = threads;
  cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
  // bk's KV cache is F16; LLAMA_CPP_LOGITS_KV=f32 makes llama.cpp's F32 instead (to see how much
  // of a difference the cache's precision makes on llama.cpp's own side).
  const char* kv = std::getenv("LLAMA_CPP_LOGITS_KV");
  const bool kv_f32 = kv != nullptr && std::strcmp(kv, "f32") == 0;
  cp.type_k = kv_f32 ? GGML_TYPE_F32 : GGML_TYPE_F16;
  cp.type_v = kv_f32 ? GGML_TYPE_F32 : GGML_TYPE_F16;
  cp.offload_kqv = false;
  cp.op_offload = false;
  cp.no_perf = true;
  llama_context* ctx = llama_init_from_model(model, cp);
  if (ctx == nullptr) die("could not create a context");

  llama_batch batch = llama_batch_init(n, 0, 1);
  batch.n_tokens = n;
  for (int32_t i = 0; i < n; ++i) {
    batch.token[i] = tokens[static_cast<size_t>(i)];
    batch.pos[i] = i;
    batch.n_seq_id[i] = 1;
    batch.seq_id[i][0] = 0;
    batch.logits[i] = 1;
  }
  if (const int32_t rc = llama_decode(ctx, batch); rc != 0)
    die("llama_decode returned " + std::to_string(rc));

  FILE* out = std::fopen(out_path, "w");
  if (out == nullptr) die(std::string("cannot write ") + out_path);
  char desc[256] = {0};
  llama_model_desc(model, desc, sizeof desc);
  std::fprintf(out, "{\n  \"schema\": \"llama.cpp.logits\",\n");
  std::fprintf(out, "  \"ggml_version\": %s,\n  \"ggml_commit\": %s,\n", json_string(ggml_version()).c_str(),
               json_string(ggml_commit()).c_str());
  std::fprintf(out, "  \"model\": {\"file\": %s, \"desc\": %s, \"vocab\": %d},\n",
               json_string(model_path).c_str(), json_string(desc).c_str(), n_vocab);
  std::fprintf(out, "  \"device\": \"CPU\",\n  \"threads\": %d,\n  \"kv_type\": \"%s\",\n  \"tokens\": [",
               threads, kv_f32 ? "f32" : "f16");
  for (int32_t i = 0; i < n; ++i) std::fprintf(out, "%s%d", i ? ", " : "", tokens[static_cast<size_t>(i)]);
  std::fprintf(out, "],\n  \"positions\": [\n");
  for (int32_t i = 0; i < n; ++i) {
    const float* row = llama_get_logits_ith(ctx, i);
    if (row == nullptr) die("no logits for position " + std::to_string(i));
    const int32_t argmax = static_cast<int32_t>(std::max_element(row, row + n_vocab) - row);
    std::fprintf(out, "    {\"position\": %d, \"token\": %d, \"argmax\": %d, \"logits\": [", i,
                 tokens[static_cast<size_t>(i)], argmax);
    for (int32_t v = 0; v < n_vocab; ++v) {
      if (std::isfinite(row[v])) {
        std::fprintf(out, "%s%.9g", v ? ", " : "", static_cast<double>(row[v]));
      } else {
        std::fprintf(out, "%snull", v ? ", " : "");
      }
    }
    std::fprintf(out, "]}%s\n", i + 1 < n ? "," : "");
  }
  std::fprintf(out, "  ]\n}\n");
  if (std::fclose(out) != 0) die(std::string("error writing ") + out_path);
  std::fprintf(stderr, "llama-cpp-logits: wrote the logits of %d positions (vocab %d) to %s\n", n, n_vocab,
               out_path);

  llama_batch_free(batch);
  llama_free(ctx);
  llama_model_free(model);
  llama_backend_free();
  return 0;
}
