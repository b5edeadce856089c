// SPDX-License-Identifier: MIT
// The case list itself: coverage of the op set and the shapes the issue asks for.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "bk/ops.h"
#include "cases.h"
#include "probe/verify/limits.h"

namespace bk::conformance {
namespace {

TEST(Cases, NamesAreUniqueIdentifiers) {
  std::set<std::string> names;
  for (const Case& c : all_cases()) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    for (char ch : c.name) {
      EXPECT_TRUE(std::islower(static_cast<unsigned char>(ch)) ||
                  std::isdigit(static_cast<unsigned char>(ch)) || ch == '_' || ch == 'x')
          << c.name;
    }
  }
}

TEST(Cases, EveryComputeOpHasEveryFloatDtype) {
  std::set<std::pair<std::string, DType>> seen;
  for (const Case& c : all_cases()) seen.insert({c.op, c.dtype});
  for (const char* op : {"add", "mul", "scale", "silu", "gelu", "mul_mat", "rms_norm", "soft_max", "rope",
                         "get_rows", "cpy", "cont", "reshape", "view", "transpose", "graph"}) {
    for (DType t : {DType::F32, DType::F16, DType::BF16}) {
      EXPECT_TRUE(seen.contains({op, t})) << op << " has no " << dtype_name(t) << " case";
    }
  }
}

bool any_name_has(const std::string& part) {
  for (const Case& c : all_cases()) {
    if (c.name.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(Cases, CoverOddSizesLayoutsAndBroadcasts) {
  for (const char* part :
       {"_1", "x7", "33", "4097", "_transposed", "_permuted", "_bcast_row", "_bcast_col",
        "_batch6x3_bcast2x1", "_into_view", "_causal", "_neox", "_normal", "mul_mat_f16_33x7x4097"}) {
    EXPECT_TRUE(any_name_has(part)) << "no case named like *" << part << "*";
  }
}

TEST(Cases, EveryCaseBuildsAGraphWithOutputs) {
  for (const Case& c : all_cases()) {
    Graph g = c.build();
    EXPECT_FALSE(g.outputs().empty()) << c.name;
    EXPECT_LE(verify::graph_limit(g), 1e-3) << c.name;  // anything looser would hide real bugs
  }
}

// Every case but the whole blocks computes one node (the rest are views and leafs), and is
// judged by that node's own limit.
TEST(Cases, SingleOpCasesTakeTheirOpsLimit) {
  for (const Case& c : all_cases()) {
    if (c.op == "graph") continue;
    Graph g = c.build();
    std::vector<const Tensor*> computing;
    for (const Tensor* node : g.nodes()) {
      if (!op_is_view(node->op)) computing.push_back(node);
    }
    ASSERT_EQ(computing.size(), 1u) << c.name;
    EXPECT_EQ(verify::graph_limit(g), verify::limit_for(*computing.front())) << c.name;
  }
}

TEST(Cases, ShapeNamesDropTrailingOnes) {
  EXPECT_EQ(shape_name({33, 7, 1, 1}), "33x7");
  EXPECT_EQ(shape_name({1, 1, 1, 1}), "1");
  EXPECT_EQ(shape_name({1, 1, 2, 1}), "1x1x2");
}

}  // namespace
}  // namespace bk::conformance
