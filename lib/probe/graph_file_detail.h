// SPDX-License-Identifier: MIT
#pragma once
// Internals of the graph-file parser shared by graph_file.cpp (structure, names, order) and
// graph_file_ops.cpp (one builder call per op with its parameters).

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "bk/graph.h"

namespace bk::graph_file {

// Elements per tensor are capped so that no byte count can overflow, whatever the dtype.
inline constexpr int64_t kMaxDim = int64_t{1} << 32;
inline constexpr int64_t kMaxElements = int64_t{1} << 40;

// One entry of "tensors", with the place to report problems at.
struct Entry {
  const nlohmann::json* json = nullptr;
  std::string name;
  std::string where;            // "model.json: tensors[3] ('h')"
  std::vector<size_t> sources;  // indices into the entries
};

[[noreturn]] void fail(const Entry& e, const std::string& what);

Shape shape_field(const Entry& e, const char* key);
DType type_field(const Entry& e, const char* key);

// Adds the entry (a node) to the builder; its sources are already built.
Tensor& build_node(GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& sources);
// The keys a node with this op may have besides name, op and src; nullptr for an unknown op.
const std::vector<std::string>* op_keys(const std::string& op);

}  // namespace bk::graph_file
