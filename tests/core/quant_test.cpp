// SPDX-License-Identifier: MIT
// Block-quantized types: traits, hand-built blocks decoded as ggml's layout says, and the
// encoder's round trip within each type's resolution. (Files written by ggml itself decode in
// tests/probe/gguf_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "bk/error.h"
#include "bk/graph.h"
#include "bk/op_info.h"
#include "bk/ops.h"
#include "bk/quant.h"

namespace bk {
namespace {

constexpr DType kQuantized[] = {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K};

std::vector<uint8_t> blocks(DType type, int64_t n) {
  return std::vector<uint8_t>(static_cast<size_t>(n / dtype_block(type)) * dtype_size(type));
}

void put_f16(uint8_t* p, float v) {
  const uint16_t h = f32_to_f16(v);
  std::memcpy(p, &h, 2);
}

TEST(Quant, TraitsAreGgmlsBlocks) {
  EXPECT_EQ(dtype_block(DType::Q8_0), 32);
  EXPECT_EQ(dtype_size(DType::Q8_0), 34u);
  EXPECT_EQ(dtype_block(DType::Q4_0), 32);
  EXPECT_EQ(dtype_size(DType::Q4_0), 18u);
  EXPECT_EQ(dtype_block(DType::Q4_K), 256);
  EXPECT_EQ(dtype_size(DType::Q4_K), 144u);
  EXPECT_EQ(dtype_block(DType::Q6_K), 256);
  EXPECT_EQ(dtype_size(DType::Q6_K), 210u);
  for (DType t : kQuantized) {
    EXPECT_TRUE(is_quantized(t));
    EXPECT_FALSE(dtype_traits(t).is_float);
    EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
  }
  EXPECT_EQ(dtype_from_name("Q4_K"), DType::Q4_K);
  EXPECT_FALSE(is_quantized(DType::F16));
}

TEST(Quant, HandBuiltBlocksDecodeByTheLayout) {
  // q8_0: d = 0.5, q = j - 16.
  std::vector<uint8_t> q8 = blocks(DType::Q8_0, 32);
  put_f16(q8.data(), 0.5f);
  for (int j = 0; j < 32; ++j)
    q8[2 + static_cast<size_t>(j)] = static_cast<uint8_t>(static_cast<int8_t>(j - 16));
  float y[256];
  dequantize_row(DType::Q8_0, q8.data(), y, 32);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], 0.5f * static_cast<float>(j - 16)) << j;

  // q4_0: byte j = element j (low nibble) and j + 16 (high nibble), minus 8; d = 2.
  std::vector<uint8_t> q4 = blocks(DType::Q4_0, 32);
  put_f16(q4.data(), 2.0f);
  for (int j = 0; j < 16; ++j) q4[2 + static_cast<size_t>(j)] = static_cast<uint8_t>(j | ((15 - j) << 4));
  dequantize_row(DType::Q4_0, q4.data(), y, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 2.0f * static_cast<float>(j - 8)) << j;
    EXPECT_EQ(y[j + 16], 2.0f * static_cast<float>(7 - j)) << j;
  }

  // q4_k: d = 1, dmin = 0.5; group g has scale g + 1 and min 2g (6-bit packing, groups 4-7
  // split); every nibble 3: x = (g + 1) * 3 - 0.5 * 2g.
  std::vector<uint8_t> k4 = blocks(DType::Q4_K, 256);
  put_f16(k4.data(), 1.0f);
  put_f16(k4.data() + 2, 0.5f);
  uint8_t* s = k4.data() + 4;
  for (int j = 0; j < 4; ++j) {
    const int sc_lo = j + 1, sc_hi = j + 5, m_lo = 2 * j, m_hi = 2 * (j + 4);
    s[j] = static_cast<uint8_t>(sc_lo | ((sc_hi >> 4) << 6));
    s[j + 4] = static_cast<uint8_t>(m_lo | ((m_hi >> 4) << 6));
    s[j + 8] = static_cast<uint8_t>((sc_hi & 0xF) | ((m_hi & 0xF) << 4));
  }
  std::memset(k4.data() + 16, 0x33, 128);
  dequantize_row(DType::Q4_K, k4.data(), y, 256);
  for (int e = 0; e < 256; ++e) {
    const int g = e / 32;
    EXPECT_EQ(y[e], static_cast<float>(g + 1) * 3 - 0.5f * static_cast<float>(2 * g)) << e;
  }

  // q6_k: d = 0.25, scale of group g (16 elements) = g - 8, every 6-bit code 40: x = d * sc * 8.
  std::vector<uint8_t> k6 = blocks(DType::Q6_K, 256);
  std::memset(k6.data(), (40 & 0xF) | ((40 & 0xF) << 4), 128);  // low nibbles of two codes
  const int hi = 40 >> 4;
  std::memset(k6.data() + 128, hi | (hi << 2) | (hi << 4) | (hi << 6), 64);
  for (int g = 0; g < 16; ++g)
    k6[192 + static_cast<size_t>(g)] = static_cast<uint8_t>(static_cast<int8_t>(g - 8));
  put_f16(k6.data() + 208, 0.25f);
  dequantize_row(DType::Q6_K, k6.data(), y, 256);
  for (int e = 0; e < 256; ++e) EXPECT_EQ(y[e], 0.25f * static_cast<float>(e / 16 - 8) * 8.0f) << e;
}

// Relative RMS error of a round trip through each type, on values like weights.
TEST(Quant, RoundTripsWithinEachTypesResolution) {
  const int64_t n = 256 * 16;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
  for (float& v : x) v = normal(rng);
  struct Bound {
    DType type;
    double rel_rms;  // at most: 8 bits ~0.5%, 6 bits ~2%, 4 bits ~10%
  };
  for (const Bound& b : {Bound{DType::Q8_0, 0.01}, Bound{DType::Q6_K, 0.04}, Bound{DType::Q4_0, 0.15},
                         Bound{DType::Q4_K, 0.15}}) {
    std::vector<uint8_t> q = blocks(b.type, n);
    quantize_row(b.type, x.data(), q.data(), n);
    dequantize_row(b.type, q.data(), y.data(), n);
    double err = 0, ref = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      err += (y[i] - x[i]) * (y[i] - x[i]);
      ref += x[i] * x[i];
    }
    EXPECT_LT(std::sqrt(err / ref), b.rel_rms) << dtype_name(b.type);
    EXPECT_GT(std::sqrt(err / ref), 0) << dtype_name(b.type) << ": lossless is not quantizing";
  }
}

TEST(Quant, ZerosStayZerosAndConvertGoesThroughBlocks) {
  for (DType t : kQuantized) {
    std::vector<float> zeros(256, 0.0f), back(256, 1.0f);
    std::vector<uint8_t> q = blocks(t, 256);
    quantize_row(t, zeros.data(), q.data(), 256);
    convert(t, q.data(), DType::F32, back.data(), 256);
    for (float v : back) ASSERT_EQ(v, 0.0f) << dtype_name(t);
  }
}

TEST(Quant, TensorsAreRowsOfWholeBlocks) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::Q4_K, {512, 3, 1, 1}, "w");
  EXPECT_EQ(w.nb[0], 144u);
  EXPECT_EQ(w.nb[1], 2 * 144u);
  EXPECT_EQ(w.row_bytes(), 2 * 144u);
  EXPECT_EQ(w.nbytes(), 3 * 2 * 144u);
  EXPECT_TRUE(w.is_contiguous());
  // What a mul_mat reads is the blocks, not 144 bytes an element.
  Tensor& x = g.input(DType::F32, {512, 2, 1, 1}, "x");
  const OpCost cost = op_cost(ops::mul_mat(g, w, x));
  EXPECT_EQ(cost.bytes_read, 3 * 2 * 144u + 512 * 2 * 4u);
  EXPECT_EQ(cost.bytes_written, 3 * 2 * 4u);
  try {
    g.weight(DType::Q4_0, {100, 1, 1, 1}, "odd");
    ADD_FAILURE() << "a row of 100 q4_0 elements is not whole blocks";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a multiple of 32"), std::string::npos) << e.what();
  }
}

TEST(Quant, OnlyMulMatAndGetRowsReadQuantizedTensors) {
  GraphBuilder g;
  Tensor& w = g.weight(DType::Q8_0, {64, 4, 1, 1}, "w");
  Tensor& x = g.input(DType::F32, {64, 2, 1, 1}, "x");
  Tensor& idx = g.input(DType::I32, {3, 1, 1, 1}, "idx");
  EXPECT_EQ(ops::mul_mat(g, w, x).type, DType::F32);
  EXPECT_EQ(ops::get_rows(g, w, idx).type, DType::F32);
  const auto refused = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused([&] { ops::add(g, w, w); }).find("must be f32, f16 or bf16"), std::string::npos);
  EXPECT_NE(refused([&] { ops::transpose(g, w); }).find("quantized"), std::string::npos);
  EXPECT_NE(refused([&] { ops::reshape(g, w, {128, 2, 1, 1}); }).find("quantized"), std::string::npos);
  EXPECT_NE(refused([&] { ops::cont(g, w); }).find("quantized"), std::string::npos);
  EXPECT_NE(refused([&] { ops::mul_mat(g, x, w); }).find("activations x"), std::string::npos);
}

}  // namespace
}  // namespace bk
