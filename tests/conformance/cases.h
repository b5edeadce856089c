// SPDX-License-Identifier: MIT
#pragma once
// The conformance cases: op x dtype x shape, each a small graph and the leaf data it needs.
// Written once for every device. Each output may reach the NMSE limit of its graph against the
// float64 reference (probe/verify/limits.h: graph_limit, from the ops and dtypes in it), so a
// case states no limit of its own.
//
// Case names are stable identifiers (devices key their known failures by them):
//   <op>_<dtype>_<shape>[_<variant>], shape = the sizes of the tested tensor joined by 'x' with
//   trailing 1s dropped; mul_mat uses MxNxK. Example: mul_mat_f16_33x7x4097.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bk/graph.h"

namespace bk::conformance {

// How a leaf is filled before each run. Every fill is fresh random data; float data is never 0.
struct LeafFill {
  enum class Kind {
    uniform,      // floats: a random sign times a magnitude uniform in [lo, hi)
    integers,     // I32: uniform integers in [lo, hi)
    causal_mask,  // F32 [n_kv, rows, ...]: 0 where i0 <= i1 + (n_kv - rows), else -inf
  };
  Kind kind = Kind::uniform;
  double lo = 0.1;
  double hi = 1.0;
};

struct Case {
  std::string name;
  std::string op;  // the op under test ("mul_mat", or "graph" for whole blocks)
  DType dtype;     // the dtype the name speaks of
  // Builds a fresh graph; its outputs are what is compared.
  std::function<Graph()> build;
  std::map<std::string, LeafFill> fills;  // by leaf name; absent float leafs are uniform
};

// All cases, in a stable order; names are unique.
const std::vector<Case>& all_cases();

// The case list is assembled from one function per op family (cases_*.cpp).
void add_elementwise_cases(std::vector<Case>& out);
void add_mul_mat_cases(std::vector<Case>& out);
void add_quantized_cases(std::vector<Case>& out);
void add_norm_cases(std::vector<Case>& out);  // rms_norm, soft_max, rope
void add_data_cases(std::vector<Case>& out);  // get_rows, cpy, cast, cont and the views
void add_graph_cases(std::vector<Case>& out);

// "33x7x4097": the sizes with trailing 1s dropped.
std::string shape_name(const Shape& ne);

}  // namespace bk::conformance
