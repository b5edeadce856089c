// SPDX-License-Identifier: MIT
#include "cases.h"

#include <fmt/format.h>

#include <set>

#include "bk/error.h"

namespace bk::conformance {

std::string shape_name(const Shape& ne) {
  Shape copy = ne;
  int dims = kMaxDims;
  while (dims > 1 && copy[static_cast<size_t>(dims - 1)] == 1) --dims;
  std::string s = std::to_string(copy[0]);
  for (int i = 1; i < dims; ++i) s += "x" + std::to_string(copy[static_cast<size_t>(i)]);
  return s;
}

namespace {

std::vector<Case> assemble() {
  std::vector<Case> cases;
  add_elementwise_cases(cases);
  add_mul_mat_cases(cases);
  add_quantized_cases(cases);
  add_norm_cases(cases);
  add_data_cases(cases);
  add_graph_cases(cases);
  std::set<std::string> names;
  for (const Case& c : cases) {
    if (!names.insert(c.name).second) {
      throw Error(ErrorCode::invalid_argument, fmt::format("conformance case '{}' is listed twice", c.name));
    }
  }
  return cases;
}

}  // namespace

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = assemble();
  return cases;
}

}  // namespace bk::conformance
