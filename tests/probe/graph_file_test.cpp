// SPDX-License-Identifier: MIT
#include "probe/graph_file.h"

#include <gtest/gtest.h>

#include "bk/error.h"
#include "bk/ops.h"

namespace bk {
namespace {

std::string file(const std::string& tensors, const std::string& outputs = R"(["out"])") {
  return R"({"schema": "bk.graph/v1", "tensors": [)" + tensors + R"(], "outputs": )" + outputs + "}";
}

std::string error_of(const std::string& text) {
  try {
    parse_graph_json(text, "g.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    return e.what();
  }
  ADD_FAILURE() << "parsed: " << text;
  return "";
}

constexpr const char* kLeafs = R"(
  {"name": "x", "kind": "input", "type": "f32", "shape": [64, 8]},
  {"name": "w", "kind": "weight", "type": "f16", "shape": [64, 32]},
  {"name": "pos", "kind": "input", "type": "i32", "shape": [8]},
  {"name": "mask", "kind": "input", "type": "f32", "shape": [8, 8]},
  {"name": "ids", "kind": "input", "type": "i32", "shape": [4]},
)";

TEST(GraphFile, ReadsEveryOpAndItsParameters) {
  const std::string text = file(std::string(kLeafs) + R"(
    {"name": "out", "op": "add", "src": ["h2", "h2"]},
    {"name": "h", "op": "mul_mat", "src": ["w", "x"]},
    {"name": "hn", "op": "rms_norm", "src": ["h"], "eps": 1e-6},
    {"name": "hs", "op": "scale", "src": ["hn"], "scale": 0.5},
    {"name": "hm", "op": "mul", "src": ["hs", "hn"]},
    {"name": "a", "op": "silu", "src": ["hm"]},
    {"name": "b", "op": "gelu", "src": ["a"]},
    {"name": "r", "op": "reshape", "src": ["b"], "shape": [8, 4, 8]},
    {"name": "ro", "op": "rope", "src": ["r", "pos"], "n_dims": 8, "mode": "neox", "freq_base": 500000},
    {"name": "p", "op": "permute", "src": ["ro"], "axes": [0, 2, 1, 3]},
    {"name": "pc", "op": "cont", "src": ["p"]},
    {"name": "kq", "op": "mul_mat", "src": ["pc", "pc"]},
    {"name": "sm", "op": "soft_max", "src": ["kq", "mask"], "scale": 0.35},
    {"name": "t", "op": "transpose", "src": ["sm"]},
    {"name": "v", "op": "view", "src": ["sm"], "shape": [8, 8], "strides": [4, 32], "offset": 0},
    {"name": "c16", "op": "cast", "src": ["v"], "type": "f16"},
    {"name": "back", "op": "cpy", "src": ["c16", "v"]},
    {"name": "g", "op": "get_rows", "src": ["w", "ids"]},
    {"name": "h2", "op": "cont", "src": ["t"]}
  )",
                                R"(["out", "g", "back"])");
  Graph g = parse_graph_json(text, "g.json");
  ASSERT_EQ(g.outputs().size(), 3u);
  EXPECT_EQ(g.outputs()[0]->name, "out");
  EXPECT_EQ(g.find("h")->op, Op::mul_mat);
  EXPECT_EQ(g.find("h")->ne[0], 32);
  EXPECT_FLOAT_EQ(rms_norm_eps(*g.find("hn")), 1e-6f);
  EXPECT_FLOAT_EQ(scale_factor(*g.find("hs")), 0.5f);
  EXPECT_EQ(rope_params(*g.find("ro")).mode, RopeMode::neox);
  EXPECT_EQ(rope_params(*g.find("ro")).n_dims, 8);
  EXPECT_FLOAT_EQ(soft_max_scale(*g.find("sm")), 0.35f);
  EXPECT_EQ(g.find("sm")->src[1], g.find("mask"));
  EXPECT_EQ(g.find("c16")->type, DType::F16);
  EXPECT_EQ(g.find("back")->view_src, g.find("sm"));
  EXPECT_EQ(g.find("p")->op, Op::permute);
  EXPECT_TRUE(g.find("w")->has_flag(kTensorWeight));
  EXPECT_TRUE(g.find("x")->has_flag(kTensorInput));
  EXPECT_EQ(g.nodes().back()->name, "back");  // outputs in order, each after its sources
}

TEST(GraphFile, BadJsonGivesTheLineAndColumn) {
  const std::string what = error_of("{\"schema\": \"bk.graph/v1\",\n \"tensors\": [}");
  EXPECT_NE(what.find("g.json: not valid JSON"), std::string::npos);
  EXPECT_NE(what.find("line 2"), std::string::npos);
}

TEST(GraphFile, ErrorsPointAtTheOffendingTensor) {
  const std::string leafs = R"({"name": "x", "kind": "input", "type": "f32", "shape": [64, 8]},)";
  EXPECT_NE(error_of(file(leafs + R"({"name": "out", "op": "frob", "src": ["x"]})"))
                .find("tensors[1] ('out'): unknown op \"frob\""),
            std::string::npos);
  EXPECT_NE(error_of(file(leafs + R"({"name": "out", "op": "add", "src": ["x", "y"]})"))
                .find("tensors[1] ('out'): source 'y' is not defined"),
            std::string::npos);
  EXPECT_NE(error_of(file(leafs + R"({"name": "out", "op": "add", "src": ["x", "b"]},
                                  {"name": "a", "op": "silu", "src": ["out"]},
                                  {"name": "b", "op": "silu", "src": ["a"]})"))
                .find("cycle"),
            std::string::npos);
  const std::string shape =
      error_of(file(leafs + R"({"name": "w", "kind": "weight", "type": "f32", "shape": [32, 4]},
                                                  {"name": "out", "op": "mul_mat", "src": ["w", "x"]})"));
  EXPECT_NE(shape.find("tensors[2] ('out'): mul_mat:"), std::string::npos);
  EXPECT_NE(shape.find("ne[0]"), std::string::npos);
  EXPECT_NE(error_of(file(leafs + R"({"name": "out", "op": "silu", "src": ["x"], "eps": 1})"))
                .find("unknown key \"eps\""),
            std::string::npos);
  EXPECT_NE(error_of(file(leafs + R"({"name": "out", "op": "scale", "src": ["x"]})")).find("needs \"scale\""),
            std::string::npos);
  EXPECT_NE(error_of(file(leafs + R"({"name": "out", "op": "add", "src": ["x"]})")).find("needs 2 sources"),
            std::string::npos);
  EXPECT_NE(error_of(file(leafs + R"({"name": "x", "op": "silu", "src": ["x"]})")).find("already used"),
            std::string::npos);
  const std::string one_leaf = R"({"name": "x", "kind": "input", "type": "f32", "shape": [4]})";
  EXPECT_NE(error_of(file(one_leaf, R"(["nope"])")).find("outputs[0]"), std::string::npos);
  EXPECT_NE(
      error_of(file(R"({"name": "x", "kind": "input", "type": "f32", "shape": [0]})")).find("\"shape\"[0]"),
      std::string::npos);
  EXPECT_NE(error_of(file(R"({"name": "x", "kind": "input", "type": "q4", "shape": [4]})")).find("\"type\""),
            std::string::npos);
  EXPECT_NE(
      error_of(file(R"({"name": "x", "kind": "input", "type": "f32", "shape": [4294967296, 4294967296]})"))
          .find("more than"),
      std::string::npos);
}

TEST(GraphFile, RefusesResultsTooLargeToCount) {
  const std::string text = file(R"(
    {"name": "w", "kind": "weight", "type": "f32", "shape": [1, 4294967296]},
    {"name": "x", "kind": "input", "type": "f32", "shape": [1, 4294967296]},
    {"name": "out", "op": "mul_mat", "src": ["w", "x"]})");
  EXPECT_NE(error_of(text).find("would hold more than"), std::string::npos);
}

TEST(GraphFile, RefusesTheWrongDocument) {
  EXPECT_NE(error_of("[1, 2]").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(
      error_of(R"({"schema": "bk.devices/v1", "tensors": [], "outputs": []})").find("\"schema\" must be"),
      std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "bk.graph/v1", "tensors": [], "outputs": []})").find("non-empty"),
            std::string::npos);
}

TEST(GraphFile, MissingFileIsBadInput) {
  try {
    load_graph_file("/nonexistent/graph.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  }
}

}  // namespace
}  // namespace bk
