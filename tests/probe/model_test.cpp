// SPDX-License-Identifier: MIT
// Llama graphs from GGUF files (probe/llama_model.h), their memory plans (probe/model_plan.h)
// and their evaluation with the files' weights (probe/model_run.h), on the fixtures written by
// ggml (tests/data/gguf).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "bk/error.h"
#include "expect_error.h"
#include "gguf_writer.h"
#include "probe/model_plan.h"
#include "probe/model_run.h"
#include "sim_fixture.h"

namespace bk {
namespace {

const std::string kDir = BK_TEST_GGUF_DIR;
constexpr size_t kGiB = size_t{1} << 30;

GgufFile fixture(const char* name) { return GgufFile::open(kDir + "/" + name); }

TEST(LlamaParams, TinyModelFromItsMetadata) {
  const LlamaParams p = llama_params(fixture("tiny-llama-q4_k_m.gguf"));
  EXPECT_EQ(p.arch, "llama");
  EXPECT_EQ(p.layers, 2);
  EXPECT_EQ(p.embd, 256);
  EXPECT_EQ(p.ff, 768);
  EXPECT_EQ(p.heads, 8);
  EXPECT_EQ(p.kv_heads, 4);
  EXPECT_EQ(p.head_dim, 32);
  EXPECT_EQ(p.vocab, 512);
  EXPECT_EQ(p.train_ctx, 256);
  EXPECT_FALSE(p.neox_rope);
}

TEST(LlamaParams, RealShapesFromHeaderOnlyFiles) {
  const LlamaParams p8 = llama_params(fixture("llama-3-8b-q4_k_m.meta.gguf"));
  EXPECT_EQ(p8.layers, 32);
  EXPECT_EQ(p8.kv_dim(), 1024);
  const LlamaParams p70 = llama_params(fixture("llama-3-70b-q4_k_m.meta.gguf"));
  EXPECT_EQ(p70.layers, 80);
  EXPECT_EQ(p70.embd, 8192);
  EXPECT_EQ(p70.heads / p70.kv_heads, 8);
  EXPECT_EQ(p70.rope_base, 500000.0f);
}

TEST(LlamaParams, UnknownArchitectureIsRefusedByName) {
  test::GgufWriter w;
  w.header(0, 1).kv_str("general.architecture", "gemma2").pad();
  const GgufFile file = GgufFile::parse(w.bytes(), "gemma.gguf");
  test::expect_invalid([&] { llama_params(file); }, {"'gemma2'", "gemma.gguf"});
}

TEST(LlamaGraph, MissingOrMisshapenTensorsAreNamed) {
  test::GgufWriter w;
  w.header(1, 6)
      .kv_str("general.architecture", "llama")
      .kv_u32("llama.block_count", 1)
      .kv_u32("llama.embedding_length", 64)
      .kv_u32("llama.feed_forward_length", 128)
      .kv_u32("llama.attention.head_count", 2)
      .kv_u32("llama.vocab_size", 100)
      .tensor("token_embd.weight", {64, 99}, 0, 0)
      .pad()
      .data(64 * 99 * 4);
  const GgufFile file = GgufFile::parse(w.bytes(), "small.gguf");
  const LlamaParams p = llama_params(file);
  test::expect_invalid(
      [&] {
        build_llama_graph(file, p, {1, 0, 8});
      },
      {"'token_embd.weight' is [64, 99, 1, 1]", "[64, 100, 1, 1]"});
}

TEST(LlamaGraph, CacheWritesComeBeforeTheirReads) {
  const GgufFile file = fixture("tiny-llama-q8_0.gguf");
  const LlamaParams p = llama_params(file);
  const LlamaGraph m = build_llama_graph(file, p, {4, 3, 16});
  ASSERT_EQ(m.kv_cache.size(), 4u);
  const auto index_of = [&](const std::string& name) {
    const auto nodes = m.graph.nodes();
    const auto it =
        std::find_if(nodes.begin(), nodes.end(), [&](const Tensor* t) { return t->name == name; });
    EXPECT_NE(it, nodes.end()) << name;
    return it - nodes.begin();
  };
  for (int l = 0; l < 2; ++l) {
    EXPECT_LT(index_of(fmt::format("k_cache_write-{}", l)), index_of(fmt::format("k-{}", l)));
    EXPECT_LT(index_of(fmt::format("v_cache_write-{}", l)), index_of(fmt::format("v-{}", l)));
  }
  const Tensor& logits = *m.graph.outputs().back();
  EXPECT_EQ(logits.name, "result_output");
  EXPECT_EQ(logits.ne[0], 512);
  EXPECT_EQ(logits.ne[1], 1);  // the last token's only
  EXPECT_EQ(m.kv_cache[0]->ne[0], p.kv_dim());
  EXPECT_EQ(m.kv_cache[0]->ne[1], 16);
  test::expect_invalid([&] { build_llama_graph(file, p, {4, 13, 16}); }, {"context of at least 17"});
}

// The plan's arithmetic: every weight of the file, and a KV cache of 2 x layers x ctx x
// kv_heads x head_dim x 2 bytes (f16).
TEST(ModelPlan, WeightsAndKvCacheMatchTheArithmetic) {
  for (const char* name : {"llama-3-8b-q4_k_m.meta.gguf", "llama-3-70b-q4_k_m.meta.gguf"}) {
    const GgufFile file = fixture(name);
    const LlamaParams p = llama_params(file);
    test::SimDevices sims("gpu0:type=gpu,mem=1TiB");
    PlanRequest req;
    req.shape = {512, 8192 - 512, 8192};
    req.unit_backend.assign(static_cast<size_t>(p.layers) + 1, 0);
    const ModelPlan plan = plan_model(file, req, sims.backends({"gpu0", "CPU"}));
    EXPECT_EQ(plan.weight_bytes(), file.tensor_bytes()) << name;
    EXPECT_EQ(plan.kv_cache_bytes(), size_t{2} * p.layers * 8192 * p.kv_heads * p.head_dim * 2) << name;
    // Every layer and the KV cache on gpu0; the token embedding on the CPU.
    EXPECT_EQ(plan.devices[0].kv_cache, plan.kv_cache_bytes());
    EXPECT_TRUE(plan.devices[1].token_embedding);
    EXPECT_EQ(plan.devices[1].weights, file.tensor("token_embd.weight")->bytes);
    EXPECT_GT(plan.devices[0].compute, 0u);
    EXPECT_TRUE(plan.devices[0].needed() + plan.margin <= plan.devices[0].free);
  }
  const double weights_gib =
      static_cast<double>(fixture("llama-3-70b-q4_k_m.meta.gguf").tensor_bytes()) / kGiB;
  EXPECT_NEAR(weights_gib, 39.55, 0.005);
}

TEST(ModelPlan, FitFillsTheDevicesFromTheTopWithinTheirBudgets) {
  const GgufFile file = fixture("llama-3-70b-q4_k_m.meta.gguf");
  test::SimDevices sims("gpu0:type=gpu,mem=24GiB;gpu1:type=gpu,mem=12GiB");
  PlanRequest req;
  req.shape = {512, 8192 - 512, 8192};
  req.fit = true;
  const ModelPlan plan = plan_model(file, req, sims.backends({"gpu0", "gpu1", "CPU"}));
  for (size_t d = 0; d < 2; ++d) {
    EXPECT_LE(plan.devices[d].needed() + plan.margin, plan.devices[d].free) << plan.devices[d].name;
    EXPECT_FALSE(plan.devices[d].units.empty());
  }
  // gpu0 holds the output layer and the last layers, gpu1 the ones below, the CPU the first.
  EXPECT_EQ(plan.unit_backend.back(), 0);
  EXPECT_TRUE(std::is_sorted(plan.unit_backend.rbegin(), plan.unit_backend.rend()));
  EXPECT_EQ(plan.unit_backend.front(), 2);
  size_t units = 0;
  for (const PlanDevice& d : plan.devices) units += d.units.size();
  EXPECT_EQ(units, 81u);
  // One more layer on gpu0 would not have fitted.
  const int lowest = *std::min_element(plan.devices[0].units.begin(), plan.devices[0].units.end());
  PlanRequest more = req;
  more.fit = false;
  more.unit_backend = plan.unit_backend;
  more.unit_backend[static_cast<size_t>(lowest - 1)] = 0;
  const ModelPlan bigger = plan_model(file, more, sims.backends({"gpu0", "gpu1", "CPU"}));
  EXPECT_GT(bigger.devices[0].needed() + bigger.margin, bigger.devices[0].free);
}

TEST(ModelPlan, WhatDoesNotFitSaysWhatWould) {
  const GgufFile file = fixture("llama-3-8b-q4_k_m.meta.gguf");
  test::SimDevices sims("gpu0:type=gpu,mem=8GiB");
  PlanRequest req;
  req.shape = {512, 32768 - 512, 32768};
  req.unit_backend.assign(33, 0);
  const ModelPlan plan = plan_model(file, req, sims.backends({"gpu0", "CPU"}));
  ASSERT_FALSE(plan.fits);
  std::string advice;
  for (const std::string& line : plan.advice) advice += line + "\n";
  EXPECT_NE(advice.find("gpu0 needs"), std::string::npos) << advice;
  EXPECT_NE(advice.find("--fit"), std::string::npos) << advice;
  // The context it advises is the largest multiple of 256 that fits.
  const size_t at = advice.find("--ctx ");
  ASSERT_NE(at, std::string::npos) << advice;
  const int64_t ctx = std::stoll(advice.substr(at + 6));
  const auto fits_with = [&](int64_t c) {
    PlanRequest r = req;
    r.shape = {512, c - 512, c};
    return plan_model(file, r, sims.backends({"gpu0", "CPU"})).fits;
  };
  EXPECT_EQ(ctx % 256, 0);
  EXPECT_TRUE(fits_with(ctx));
  EXPECT_FALSE(fits_with(ctx + 256));
}

// The tiny model with its file's weights on the CPU: the logits of a prompt against the float64
// reference on the same stored weights.
std::vector<double> prompt_logits(const char* name, bool check) {
  const GgufFile file = fixture(name);
  auto cpu = cpu_reg().devices().front()->init_backend();
  Backend* backends[] = {cpu.get()};
  ModelSession session(file, backends, std::vector<int>(3, 0), 32);
  ModelSession::Prepared& prompt = session.prepare(8, 0);
  session.set_tokens(prompt, {1, 17, 300, 42, 5, 511, 260, 99});
  ModelSession::compute(prompt);
  std::vector<double> got = ModelSession::logits(prompt);
  if (check) {
    const verify::NmseCheck c = session.check(prompt);
    EXPECT_TRUE(c.ok) << name << ": " << c.message;
  }
  return got;
}

TEST(ModelRun, TinyModelsMatchTheReference) {
  for (const char* name : {"tiny-llama-q8_0.gguf", "tiny-llama-q4_0.gguf", "tiny-llama-q4_k_m.gguf"}) {
    const std::vector<double> logits = prompt_logits(name, true);
    EXPECT_EQ(logits.size(), 512u);
  }
}

double nmse(const std::vector<double>& got, const std::vector<double>& want) {
  double err = 0, ref = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    err += (got[i] - want[i]) * (got[i] - want[i]);
    ref += want[i] * want[i];
  }
  return err / ref;
}

// The same random model stored in three types: the 4-bit ones stay close to the 8-bit one.
TEST(ModelRun, QuantizedVariantsAgreeWithinTheirQuantization) {
  const std::vector<double> q8 = prompt_logits("tiny-llama-q8_0.gguf", false);
  const double q4_0 = nmse(prompt_logits("tiny-llama-q4_0.gguf", false), q8);
  const double q4_k = nmse(prompt_logits("tiny-llama-q4_k_m.gguf", false), q8);
  EXPECT_LT(q4_0, 0.05);
  EXPECT_LT(q4_k, 0.05);
  EXPECT_LT(q4_k, q4_0);  // Q4_K's finer scales lose less than Q4_0
  EXPECT_GT(q4_k, 1e-6);  // and they do differ: the files are not one type
}

// Decoding one token after a prompt of 8 gives the logits a prompt of all 9 gives for its last:
// the KV cache carries the first 8.
TEST(ModelRun, DecodeAfterAPromptContinuesFromTheCache) {
  const GgufFile file = fixture("tiny-llama-q4_k_m.gguf");
  auto cpu = cpu_reg().devices().front()->init_backend();
  Backend* backends[] = {cpu.get()};
  const std::vector<int32_t> tokens = {1, 17, 300, 42, 5, 511, 260, 99, 7};
  ModelSession whole(file, backends, std::vector<int>(3, 0), 32);
  ModelSession::Prepared& nine = whole.prepare(9, 0);
  whole.set_tokens(nine, tokens);
  ModelSession::compute(nine);

  ModelSession steps(file, backends, std::vector<int>(3, 0), 32);
  ModelSession::Prepared& eight = steps.prepare(8, 0);
  steps.set_tokens(eight, {tokens.begin(), tokens.end() - 1});
  ModelSession::compute(eight);
  ModelSession::Prepared& next = steps.prepare(1, 8);
  steps.set_tokens(next, {tokens.back()});
  ModelSession::compute(next);
  // Not bit for bit: the one-token graph takes the CPU's decode-width kernels (activations
  // rounded to 16-bit blocks), the nine-token prompt its f32 GEMM; both are within 1e-7 of each
  // other, far from the 1e-3 that a wrong cache would give (below).
  EXPECT_LT(nmse(ModelSession::logits(next), ModelSession::logits(nine)), 1e-6);
  // And it is not the prompt's own last token.
  EXPECT_GT(nmse(ModelSession::logits(eight), ModelSession::logits(nine)), 1e-3);
}

// The CPU computes from the file's mapping: its weights point into the file's data section,
// nothing refers to a copy, the memory report says so, and the logits are the copied weights'
// bit for bit.
TEST(ModelRun, CpuWeightsAreReadInPlaceFromTheFile) {
  const GgufFile file = fixture("tiny-llama-q4_k_m.gguf");
  auto cpu = cpu_reg().devices().front()->init_backend();
  Backend* backends[] = {cpu.get()};
  const std::vector<int32_t> tokens = {1, 17, 300, 42, 5, 511, 260, 99};
  auto run = [&](ModelSession& session) {
    ModelSession::Prepared& prompt = session.prepare(8, 0);
    session.set_tokens(prompt, tokens);
    ModelSession::compute(prompt);
    return ModelSession::logits(prompt);
  };
  ModelSession mapped(file, backends, std::vector<int>(3, 0), 32, CpuWeights::mapped);
  ModelSession copied(file, backends, std::vector<int>(3, 0), 32, CpuWeights::copied);
  EXPECT_EQ(run(mapped), run(copied));

  const std::span<const std::byte> data = file.data();
  const Graph& decode = mapped.prepare(1, 8).model.graph;
  Tensor* weight = decode.find("blk.1.ffn_down.weight");
  ASSERT_NE(weight, nullptr);
  EXPECT_EQ(static_cast<const std::byte*>(weight->data), data.data() + file.tensor(weight->name)->offset);
  size_t stored = 0;
  for (const Tensor* leaf : decode.leafs()) {
    if (const GgufTensor* t = file.tensor(leaf->name)) stored += t->bytes;
  }
  const Device& device = cpu->device();
  EXPECT_EQ(mapped.mapped_bytes_on(device), stored);
  EXPECT_GT(mapped.bytes_on(device), stored);  // and the KV cache
  EXPECT_EQ(copied.mapped_bytes_on(device), 0u);
  EXPECT_GE(copied.bytes_on(device), mapped.bytes_on(device));

  // The mapping is read-only: a write is refused with the file named, and nothing crashes.
  std::vector<std::byte> zeros(weight->nbytes());
  test::expect_code(ErrorCode::unsupported,
                    [&] { weight->buffer->set_tensor(*weight, zeros.data(), 0, zeros.size()); },
                    {"tiny-llama-q4_k_m.gguf", "read-only"});
  test::expect_code(ErrorCode::unsupported, [&] { weight->buffer->type().alloc(64); }, {"cannot allocate"});
}

TEST(ModelRun, HeaderOnlyFilesCannotBeComputed) {
  const GgufFile file = fixture("llama-3-8b-q4_k_m.meta.gguf");
  auto cpu = cpu_reg().devices().front()->init_backend();
  Backend* backends[] = {cpu.get()};
  test::expect_invalid([&] { ModelSession(file, backends, std::vector<int>(33, 0), 64); }, {"header-only"});
}

}  // namespace
}  // namespace bk
