// SPDX-License-Identifier: MIT
// The GGUF reader: files written by ggml's own writer (tests/data/gguf, see its README) read as
// ggml wrote them, down to the bits of the weights, and malformed files are refused with one
// line that names the file, the place and the problem.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>

#include "bk/error.h"
#include "bk/quant.h"
#include "gguf_writer.h"
#include "probe/gguf.h"

namespace bk {
namespace {

const std::string kDir = BK_TEST_GGUF_DIR;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no bk::Error";
  return {};
}

std::string parse_error(const test::GgufWriter& w) {
  return error_of([&] { GgufFile::parse(w.bytes(), "bad.gguf"); });
}

// The generator's random stream (tests/data/gguf/mkgguf.c): xorshift64, 53 bits to a float.
class GeneratorStream {
 public:
  float next() {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return static_cast<float>(static_cast<double>(rng_ >> 11) * (1.0 / 9007199254740992.0));
  }
  void skip(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) next();
  }

 private:
  uint64_t rng_ = 0x9E3779B97F4A7C15ull;
};

TEST(Gguf, TinyLlamaMetadataReadsAsWritten) {
  const GgufFile f = GgufFile::open(kDir + "/tiny-llama-q4_k_m.gguf");
  EXPECT_EQ(f.version(), 3u);
  EXPECT_EQ(f.get_string("general.architecture"), "llama");
  EXPECT_EQ(f.get_string("general.name"), "bk-tiny-llama");
  EXPECT_EQ(f.get_uint("llama.block_count"), 2u);
  EXPECT_EQ(f.get_uint("llama.embedding_length"), 256u);
  EXPECT_EQ(f.get_uint("llama.feed_forward_length"), 768u);
  EXPECT_EQ(f.get_uint("llama.attention.head_count"), 8u);
  EXPECT_EQ(f.get_uint("llama.attention.head_count_kv"), 4u);
  EXPECT_EQ(f.get_uint("llama.context_length"), 256u);
  EXPECT_EQ(f.get_float("llama.rope.freq_base"), 10000.0);
  EXPECT_EQ(f.get_float("llama.attention.layer_norm_rms_epsilon"), static_cast<double>(1e-5f));
  EXPECT_FALSE(f.get_uint("llama.no_such_key").has_value());
  const std::vector<std::string> tokens = f.get_string_array("tokenizer.ggml.tokens");
  ASSERT_EQ(tokens.size(), 512u);
  EXPECT_EQ(tokens[0], "<unk>");
  EXPECT_EQ(tokens[1], "<s>");
  EXPECT_EQ(tokens[3], "<0x00>");
  EXPECT_EQ(tokens[300], "\xe2\x96\x81t300");
  const std::optional<GgufArray> scores = f.get_array("tokenizer.ggml.scores");
  ASSERT_TRUE(scores.has_value());
  EXPECT_EQ(scores->element_type, GgufValueType::f32);
  EXPECT_EQ(scores->count, 512u);
}

TEST(Gguf, TinyLlamaTensorsHaveTheirShapesTypesAndPlaces) {
  const GgufFile f = GgufFile::open(kDir + "/tiny-llama-q4_k_m.gguf");
  ASSERT_EQ(f.tensors().size(), 3u + 2u * 9u);
  EXPECT_EQ(f.alignment(), 32u);
  EXPECT_EQ(f.data_offset() % 32, 0u);
  EXPECT_TRUE(f.has_data());
  const auto check = [&](const char* name, const char* type, int64_t ne0, int64_t ne1, uint64_t bytes) {
    const GgufTensor* t = f.tensor(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->type.name, type) << name;
    EXPECT_EQ(t->ne[0], ne0) << name;
    EXPECT_EQ(t->ne[1], ne1) << name;
    EXPECT_EQ(t->bytes, bytes) << name;
    EXPECT_EQ(f.tensor_data(*t).size(), bytes) << name;
  };
  // Q4_K: 256 elements in 144 bytes; Q6_K: 256 in 210 (the Q4_K_M mix puts Q6_K on the output
  // and on layer 0's attn_v and ffn_down).
  check("token_embd.weight", "Q4_K", 256, 512, 512 * 144);
  check("output.weight", "Q6_K", 256, 512, 512 * 210);
  check("blk.0.attn_v.weight", "Q6_K", 256, 128, 128 * 210);
  check("blk.1.attn_v.weight", "Q4_K", 256, 128, 128 * 144);
  check("blk.0.ffn_down.weight", "Q6_K", 768, 256, 256 * 3 * 210);
  check("blk.1.ffn_down.weight", "Q4_K", 768, 256, 256 * 3 * 144);
  check("blk.0.attn_norm.weight", "F32", 256, 1, 256 * 4);
  uint64_t end = 0;
  for (const GgufTensor& t : f.tensors()) {
    EXPECT_EQ(t.offset % f.alignment(), 0u) << t.name;
    end = std::max(end, f.data_offset() + t.offset + t.bytes);
  }
  EXPECT_LE(end, f.file_size());
  EXPECT_GT(end + f.alignment(), f.file_size()) << "the data runs to the end of the file";
}

TEST(Gguf, NormWeightsAreTheGeneratorsValuesBitForBit) {
  // mkgguf.c draws every element of every tensor in file order; norms are 1 + 0.1 * (2u - 1).
  for (const char* file : {"tiny-llama-q4_k_m.gguf", "tiny-llama-q4_0.gguf", "tiny-llama-q8_0.gguf"}) {
    const GgufFile f = GgufFile::open(kDir + "/" + file);
    GeneratorStream stream;
    stream.skip(256 * 512);  // token_embd.weight comes first
    const GgufTensor* norm = f.tensor("blk.0.attn_norm.weight");
    ASSERT_NE(norm, nullptr);
    const std::span<const std::byte> data = f.tensor_data(*norm);
    ASSERT_EQ(data.size(), 256u * sizeof(float));
    for (size_t i = 0; i < 256; ++i) {
      const float want = 1.0f + 0.1f * (2 * stream.next() - 1);
      float got = 0;
      std::memcpy(&got, data.data() + i * sizeof(float), sizeof(float));
      ASSERT_EQ(got, want) << file << " element " << i;
    }
  }
}

// What mkgguf.c drew for a tensor: the stream runs through every tensor in file order.
std::vector<float> generated(const GgufFile& f, const std::string& name) {
  GeneratorStream stream;
  for (const GgufTensor& t : f.tensors()) {
    const bool norm = t.name.find("norm") != std::string::npos, embd = t.name == "token_embd.weight";
    const float scale = norm ? 0.1f : embd ? 1.0f : 1.0f / std::sqrt(static_cast<float>(t.ne[0]));
    if (t.name != name) {
      stream.skip(t.elements());
      continue;
    }
    std::vector<float> values(t.elements());
    for (float& v : values) {
      v = norm ? 1.0f + scale * (2 * stream.next() - 1) : scale * (2 * stream.next() - 1) * 1.7320508f;
    }
    return values;
  }
  return {};
}

TEST(Gguf, QuantizedWeightsDecodeToWhatGgmlQuantized) {
  // ggml's quantizers (tests/data/gguf/mkgguf.c) against bk's decoding of their blocks: the
  // error is the type's own resolution; a misread layout would be as large as the values.
  struct Case {
    const char* file;
    const char* tensor;
    DType type;
    double rel_rms;
  };
  for (const Case& c : {Case{"tiny-llama-q8_0.gguf", "token_embd.weight", DType::Q8_0, 0.01},
                        Case{"tiny-llama-q4_0.gguf", "blk.1.ffn_up.weight", DType::Q4_0, 0.12},
                        Case{"tiny-llama-q4_0.gguf", "output.weight", DType::Q6_K, 0.03},
                        Case{"tiny-llama-q4_k_m.gguf", "blk.0.attn_q.weight", DType::Q4_K, 0.1},
                        Case{"tiny-llama-q4_k_m.gguf", "blk.0.ffn_down.weight", DType::Q6_K, 0.03}}) {
    const GgufFile f = GgufFile::open(kDir + "/" + c.file);
    const GgufTensor* t = f.tensor(c.tensor);
    ASSERT_NE(t, nullptr) << c.file << " " << c.tensor;
    ASSERT_EQ(gguf_dtype(t->type), c.type) << c.tensor;
    const std::vector<float> want = generated(f, c.tensor);
    std::vector<float> got(want.size());
    dequantize_row(c.type, f.tensor_data(*t).data(), got.data(), static_cast<int64_t>(got.size()));
    double err = 0, ref = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      err += (got[i] - want[i]) * (got[i] - want[i]);
      ref += want[i] * want[i];
    }
    EXPECT_LT(std::sqrt(err / ref), c.rel_rms) << c.file << " " << c.tensor;
  }
}

TEST(Gguf, HeaderOnlyFilesPlanRealModelSizes) {
  struct Model {
    const char* file;
    uint64_t layers, embd, ff;
    double gib;  // the weights the README gives
  };
  for (const Model& m : {Model{"llama-3-8b-q4_k_m.meta.gguf", 32, 4096, 14336, 4.58},
                         Model{"llama-3-70b-q4_k_m.meta.gguf", 80, 8192, 28672, 39.55}}) {
    const GgufFile f = GgufFile::open(kDir + "/" + m.file);
    EXPECT_FALSE(f.has_data()) << m.file;
    EXPECT_EQ(f.get_uint("llama.block_count"), m.layers) << m.file;
    EXPECT_EQ(f.get_uint("llama.embedding_length"), m.embd) << m.file;
    EXPECT_EQ(f.get_uint("llama.feed_forward_length"), m.ff) << m.file;
    const GgufTensor* embd = f.tensor("token_embd.weight");
    ASSERT_NE(embd, nullptr) << m.file;
    EXPECT_EQ(embd->ne[0], static_cast<int64_t>(m.embd));
    EXPECT_EQ(embd->ne[1], 128256);
    ASSERT_NE(f.tensor("blk." + std::to_string(m.layers - 1) + ".ffn_down.weight"), nullptr);
    EXPECT_NEAR(static_cast<double>(f.tensor_bytes()) / (1ull << 30), m.gib, 0.005) << m.file;
    EXPECT_NE(error_of([&] { f.tensor_data(*embd); }).find("header-only"), std::string::npos);
  }
}

TEST(Gguf, FilesThatAreNotGgufFilesAreRefusedByName) {
  EXPECT_NE(error_of([] { GgufFile::open(kDir + "/missing.gguf"); }).find("missing.gguf: cannot open it"),
            std::string::npos);
  EXPECT_NE(error_of([] { GgufFile::open(kDir); }).find("directory"), std::string::npos);
  EXPECT_NE(error_of([] { GgufFile::open("/dev/zero"); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(error_of([] { GgufFile::open(kDir + "/README.md"); }).find("not a GGUF file"), std::string::npos);
}

// A small valid file: two metadata entries, two tensors (F32 [8], Q8_0 [32, 2]) and their data.
test::GgufWriter valid_header() {
  test::GgufWriter w;
  w.header(2, 2).kv_str("general.architecture", "llama").kv_u32("llama.block_count", 1);
  w.tensor("norm", {8}, 0, 0).tensor("w", {32, 2}, 8, 32);
  return w;
}

test::GgufWriter valid_file() { return valid_header().pad().data(32).data(2 * 34); }

TEST(Gguf, ASmallHandWrittenFileParses) {
  const GgufFile f = GgufFile::parse(valid_file().bytes(), "ok.gguf");
  EXPECT_EQ(f.tensors().size(), 2u);
  EXPECT_EQ(f.tensor("w")->bytes, 68u);
  EXPECT_EQ(f.tensor_bytes(), 32u + 68u);
  EXPECT_TRUE(f.has_data());
}

TEST(Gguf, EveryTruncationIsRefusedNeverACrash) {
  const std::vector<std::byte> whole = valid_file().bytes();
  const size_t header_end = valid_header().bytes().size();
  const size_t data_offset = valid_header().pad().bytes().size();
  for (size_t n = 0; n < whole.size(); ++n) {
    const std::span<const std::byte> cut(whole.data(), n);
    if (n < header_end) {
      const std::string message = error_of([&] { GgufFile::parse(cut, "cut.gguf"); });
      EXPECT_EQ(message.rfind("cut.gguf: ", 0), 0u) << message;
    } else if (n <= data_offset) {
      // Nothing after the tensor infos: a header-only file, complete for planning.
      EXPECT_FALSE(GgufFile::parse(cut, "cut.gguf").has_data()) << n;
    } else {
      EXPECT_NE(error_of([&] { GgufFile::parse(cut, "cut.gguf"); }).find("runs past the end"),
                std::string::npos)
          << n;
    }
  }
}

TEST(Gguf, HostileHeadersAreRefusedWithWhatIsWrong) {
  struct Case {
    const char* what;
    std::function<void(test::GgufWriter&)> write;
    const char* needle;
  };
  const Case cases[] = {
      {"magic", [](auto& w) { w.raw("GGML", 4).u32(3).u64(0).u64(0); }, "not a GGUF file"},
      {"version 1", [](auto& w) { w.header(0, 0, 1); }, "version 1"},
      {"version 4", [](auto& w) { w.header(0, 0, 4); }, "version 4 is not supported"},
      {"big-endian", [](auto& w) { w.header(0, 0, 0x03000000); }, "big-endian"},
      {"metadata count", [](auto& w) { w.header(0, uint64_t{1} << 60); },
       "claims 1152921504606846976 metadata"},
      {"tensor count", [](auto& w) { w.header(uint64_t{1} << 62, 0); }, "claims 4611686018427387904 tensors"},
      {"long string", [](auto& w) { w.header(0, 1).u64(uint64_t{1} << 40).raw("key", 3).data(16); },
       "1099511627776 bytes long, but only 19"},
      {"value type", [](auto& w) { w.header(0, 1).str("k").u32(13).u32(0); }, "value type 13"},
      {"nested array", [](auto& w) { w.header(0, 1).str("k").u32(9).u32(9).u64(1); }, "array of arrays"},
      {"array count", [](auto& w) { w.header(0, 1).str("k").u32(9).u32(6).u64(uint64_t{1} << 61); },
       "2305843009213693952 elements"},
      {"string array count", [](auto& w) { w.header(0, 1).str("k").u32(9).u32(8).u64(uint64_t{1} << 61); },
       "2305843009213693952 strings"},
      {"duplicate key", [](auto& w) { w.header(0, 2).kv_u32("a", 1).kv_u32("a", 2); }, "'a' appears twice"},
      {"alignment", [](auto& w) { w.header(0, 1).kv_u32("general.alignment", 24); }, "power of two"},
      {"no dims", [](auto& w) { w.header(1, 0).tensor("t", {}, 0, 0).data(16); }, "0 dimensions"},
      {"five dims",
       [](auto& w) {
         w.header(1, 0).tensor("t", {1, 1, 1, 1, 1}, 0, 0);
       },
       "5 dimensions"},
      {"huge dim", [](auto& w) { w.header(1, 0).tensor("t", {uint64_t{1} << 63}, 0, 0); }, "over 63 bits"},
      {"dims overflow",
       [](auto& w) {
         w.header(1, 0).tensor("t", {uint64_t{1} << 40, uint64_t{1} << 40}, 0, 0);
       },
       "overflows 63 bits"},
      {"bytes overflow", [](auto& w) { w.header(1, 0).tensor("t", {uint64_t{1} << 62}, 0, 0); },
       "too large to address"},
      {"unknown type", [](auto& w) { w.header(1, 0).tensor("t", {32}, 57, 0); }, "tensor type 57 is not"},
      {"retired type", [](auto& w) { w.header(1, 0).tensor("t", {32}, 31, 0); }, "(Q4_0_4_4)"},
      {"partial block", [](auto& w) { w.header(1, 0).tensor("t", {33}, 2, 0); }, "not a whole number"},
      {"misaligned", [](auto& w) { w.header(1, 0).tensor("t", {8}, 0, 4); },
       "not a multiple of the alignment"},
      {"duplicate tensor", [](auto& w) { w.header(2, 0).tensor("t", {8}, 0, 0).tensor("t", {8}, 0, 32); },
       "'t' appears twice"},
      {"past the end", [](auto& w) { w.header(1, 0).tensor("t", {8}, 0, 64).pad().data(32); },
       "runs past the end"},
  };
  for (const Case& c : cases) {
    test::GgufWriter w;
    c.write(w);
    const std::string message = parse_error(w);
    EXPECT_NE(message.find(c.needle), std::string::npos) << c.what << ": " << message;
    EXPECT_EQ(message.rfind("bad.gguf: ", 0), 0u) << c.what << ": " << message;
  }
}

TEST(Gguf, TypedReadsNameTheKeyAndBothTypes) {
  const GgufFile f = GgufFile::parse(valid_file().bytes(), "ok.gguf");
  EXPECT_NE(error_of([&] {
              (void)f.get_uint("general.architecture");
            }).find("'general.architecture' is a string, not an integer"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)f.get_string("llama.block_count"); }).find("is a u32, not a string"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)f.get_string_array("llama.block_count"); }).find("not an array"),
            std::string::npos);
  EXPECT_EQ(f.get_float("llama.block_count"), 1.0);
}

}  // namespace
}  // namespace bk
