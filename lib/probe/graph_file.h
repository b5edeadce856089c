// SPDX-License-Identifier: MIT
#pragma once
// Graph files: a graph written as JSON, schema bk.graph/v1 (schemas/bk.graph.v1.json,
// explained in docs/sched.md). A file lists tensors by name, each a leaf (kind input or
// weight, with type and shape) or a node (op, src names and the op's parameters), and the
// output names. Tensors may be listed in any order; the sources decide the order of compute.
//
// Parsing never aborts: every problem throws Error(invalid_argument) with a message that names
// the file and the offending tensor (its index in "tensors" and its name) -- bad JSON (with
// line and column), an unknown key or op, a wrong parameter, a dangling source, a cycle (the
// path is printed), a shape the op refuses, oversized shapes.

#include <string>
#include <string_view>

#include "bk/graph.h"

namespace bk {

inline constexpr std::string_view kGraphFileSchema = "bk.graph/v1";

// `source` names the text in messages ("model.json").
Graph parse_graph_json(std::string_view text, std::string_view source);
// Reads and parses a file; an unreadable file is Error(invalid_argument) too.
Graph load_graph_file(const std::string& path);

}  // namespace bk
