// SPDX-License-Identifier: MIT
// Graph files: structure, names and order. The per-op part is graph_file_ops.cpp.
#include "probe/graph_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "bk/error.h"
#include "probe/graph_file_detail.h"
#include "probe/input_file.h"

namespace bk::graph_file {

using nlohmann::json;

void fail(const Entry& e, const std::string& what) {
  throw Error(ErrorCode::invalid_argument, fmt::format("{}: {}", e.where, what));
}

namespace {

const json& required(const Entry& e, const char* key) {
  const auto it = e.json->find(key);
  if (it == e.json->end()) fail(e, fmt::format("needs \"{}\"", key));
  return *it;
}

}  // namespace

Shape shape_field(const Entry& e, const char* key) {
  const json& v = required(e, key);
  if (!v.is_array() || v.empty() || v.size() > kMaxDims) {
    fail(e, fmt::format("\"{}\" must be an array of 1 to 4 sizes, ne[0] first", key));
  }
  Shape ne{1, 1, 1, 1};
  int64_t total = 1;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_integer() || v[i].get<int64_t>() < 1 || v[i].get<int64_t>() > kMaxDim ||
        (v[i].is_number_unsigned() && v[i].get<uint64_t>() > static_cast<uint64_t>(kMaxDim))) {
      fail(e, fmt::format("\"{}\"[{}] must be a whole number from 1 to {}", key, i, kMaxDim));
    }
    ne[i] = v[i].get<int64_t>();
    if (ne[i] > kMaxElements / total)
      fail(e, fmt::format("\"{}\" holds more than {} elements", key, kMaxElements));
    total *= ne[i];
  }
  return ne;
}

DType type_field(const Entry& e, const char* key) {
  const json& v = required(e, key);
  const std::optional<DType> type = v.is_string() ? dtype_from_name(v.get<std::string>()) : std::nullopt;
  if (!type) fail(e, fmt::format("\"{}\" must be one of f32, f16, bf16, i32", key));
  return *type;
}

}  // namespace bk::graph_file

namespace bk {
namespace {

using graph_file::Entry;
using graph_file::fail;
using nlohmann::json;

[[noreturn]] void fail_file(std::string_view source, const std::string& what) {
  throw Error(ErrorCode::invalid_argument, fmt::format("{}: {}", source, what));
}

json parse_text(std::string_view text, std::string_view source) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    fail_file(source, fmt::format("not valid JSON: {}", e.what()));
  }
}

void check_top(const json& doc, std::string_view source) {
  if (!doc.is_object()) fail_file(source, "the document must be a JSON object");
  for (const auto& [key, value] : doc.items()) {
    if (key != "schema" && key != "description" && key != "tensors" && key != "outputs") {
      fail_file(source, fmt::format("unknown key \"{}\" (keys: schema, description, tensors, outputs)", key));
    }
  }
  const auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_string() || schema->get<std::string>() != kGraphFileSchema) {
    fail_file(source, fmt::format("\"schema\" must be \"{}\"", kGraphFileSchema));
  }
  const auto tensors = doc.find("tensors");
  if (tensors == doc.end() || !tensors->is_array() || tensors->empty()) {
    fail_file(source, "\"tensors\" must be a non-empty array");
  }
}

void check_keys(const Entry& e, const std::vector<std::string>& allowed, const std::string& what) {
  for (const auto& [key, value] : e.json->items()) {
    bool known = key == "name";
    for (const std::string& a : allowed) known = known || key == a;
    if (!known)
      fail(e,
           fmt::format("unknown key \"{}\" for {}; allowed: name, {}", key, what, fmt::join(allowed, ", ")));
  }
}

std::vector<Entry> read_entries(const json& tensors, std::string_view source) {
  std::vector<Entry> entries(tensors.size());
  std::unordered_map<std::string, size_t> seen;
  for (size_t i = 0; i < tensors.size(); ++i) {
    Entry& e = entries[i];
    e.json = &tensors[i];
    e.where = fmt::format("{}: tensors[{}]", source, i);
    if (!e.json->is_object()) fail(e, "must be an object with \"name\" and \"op\" or \"kind\"");
    const auto name = e.json->find("name");
    if (name == e.json->end() || !name->is_string() || name->get<std::string>().empty()) {
      fail(e, "needs a non-empty string \"name\"");
    }
    e.name = name->get<std::string>();
    e.where = fmt::format("{}: tensors[{}] ('{}')", source, i, e.name);
    if (!seen.emplace(e.name, i).second) {
      fail(e, fmt::format("the name is already used by tensors[{}]; names must be unique", seen[e.name]));
    }
  }
  return entries;
}

void resolve_sources(Entry& e, const std::unordered_map<std::string, size_t>& index) {
  const auto src = e.json->find("src");
  if (src == e.json->end() || !src->is_array() || src->empty() || src->size() > kMaxSources) {
    fail(e, fmt::format("needs \"src\": an array of 1 to {} tensor names", kMaxSources));
  }
  for (size_t j = 0; j < src->size(); ++j) {
    const json& s = (*src)[j];
    if (!s.is_string()) fail(e, fmt::format("\"src\"[{}] must be a tensor name", j));
    const auto it = index.find(s.get<std::string>());
    if (it == index.end())
      fail(e, fmt::format("source '{}' is not defined: no tensor has that name", s.get<std::string>()));
    e.sources.push_back(it->second);
  }
}

void check_entry(Entry& e, const std::unordered_map<std::string, size_t>& index) {
  const auto op = e.json->find("op");
  if (op == e.json->end()) {
    check_keys(e, {"kind", "type", "shape"}, "a leaf");
    const auto kind = e.json->find("kind");
    if (kind == e.json->end() || !kind->is_string() || (*kind != "input" && *kind != "weight")) {
      fail(e, "needs \"op\" (a node) or \"kind\": \"input\" or \"weight\" (a leaf)");
    }
    graph_file::type_field(e, "type");
    graph_file::shape_field(e, "shape");
    return;
  }
  const std::vector<std::string>* keys =
      op->is_string() ? graph_file::op_keys(op->get<std::string>()) : nullptr;
  if (keys == nullptr) {
    fail(e,
         fmt::format(
             "unknown op {}; ops: add, mul, scale, silu, gelu, mul_mat, rms_norm, soft_max, rope, get_rows, "
             "cpy, cast, cont, reshape, view, permute, transpose",
             op->dump()));
  }
  std::vector<std::string> allowed{"op", "src"};
  allowed.insert(allowed.end(), keys->begin(), keys->end());
  check_keys(e, allowed, fmt::format("op {}", op->get<std::string>()));
  resolve_sources(e, index);
}

// Sources before users, by an iterative depth-first walk; a source met again while it is
// still being walked closes a cycle, which is reported with its path.
std::vector<size_t> compute_order(const std::vector<Entry>& entries) {
  enum : uint8_t { unseen, open, done };
  std::vector<uint8_t> state(entries.size(), unseen);
  std::vector<size_t> order;
  std::vector<std::pair<size_t, size_t>> stack;  // entry, next source
  for (size_t root = 0; root < entries.size(); ++root) {
    if (state[root] != unseen) continue;
    stack.emplace_back(root, 0);
    state[root] = open;
    while (!stack.empty()) {
      auto& [i, next] = stack.back();
      if (next == entries[i].sources.size()) {
        state[i] = done;
        order.push_back(i);
        stack.pop_back();
        continue;
      }
      const size_t s = entries[i].sources[next++];
      if (state[s] == done) continue;
      if (state[s] == open) {
        std::string path = entries[s].name;
        auto from = std::find_if(stack.begin(), stack.end(), [s](const auto& f) { return f.first == s; });
        for (auto f = from + 1; f != stack.end(); ++f) path += " -> " + entries[f->first].name;
        fail(entries[s],
             fmt::format("is part of a cycle: {} -> {} (each reads the next; a tensor cannot depend on "
                         "itself)",
                         path, entries[s].name));
      }
      state[s] = open;
      stack.emplace_back(s, 0);
    }
  }
  return order;
}

// Results can be far larger than any source (mul_mat's M x N): cap them like the leafs.
void check_result_size(const Entry& e, const Tensor& t) {
  int64_t total = 1;
  for (int64_t n : t.ne) {
    if (__builtin_mul_overflow(total, n, &total) || total > graph_file::kMaxElements) {
      fail(e, fmt::format("the result {} would hold more than {} elements", t.shape_string(),
                          graph_file::kMaxElements));
    }
  }
}

Tensor& build_entry(GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& built) {
  const auto kind = e.json->find("kind");
  if (kind != e.json->end()) {
    const DType type = graph_file::type_field(e, "type");
    const Shape ne = graph_file::shape_field(e, "shape");
    return *kind == "input" ? g.input(type, ne, e.name) : g.weight(type, ne, e.name);
  }
  std::vector<Tensor*> sources;
  for (size_t s : e.sources) sources.push_back(built[s]);
  Tensor* t = nullptr;
  try {
    t = &graph_file::build_node(g, e, sources);
  } catch (const Error& err) {
    fail(e, err.what());
  }
  check_result_size(e, *t);
  t->name = e.name;
  return *t;
}

std::vector<Tensor*> read_outputs(const json& doc, const std::unordered_map<std::string, size_t>& index,
                                  const std::vector<Tensor*>& built, std::string_view source) {
  const auto outputs = doc.find("outputs");
  if (outputs == doc.end() || !outputs->is_array() || outputs->empty()) {
    fail_file(source, "\"outputs\" must be a non-empty array of tensor names");
  }
  std::vector<Tensor*> out;
  for (size_t i = 0; i < outputs->size(); ++i) {
    const json& o = (*outputs)[i];
    const auto it = o.is_string() ? index.find(o.get<std::string>()) : index.end();
    if (it == index.end())
      fail_file(source, fmt::format("outputs[{}]: {} is not a defined tensor name", i, o.dump()));
    out.push_back(built[it->second]);
  }
  return out;
}

}  // namespace

Graph parse_graph_json(std::string_view text, std::string_view source) {
  const json doc = parse_text(text, source);
  check_top(doc, source);
  std::vector<Entry> entries = read_entries(doc["tensors"], source);
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < entries.size(); ++i) index.emplace(entries[i].name, i);
  for (Entry& e : entries) check_entry(e, index);
  GraphBuilder g;
  std::vector<Tensor*> built(entries.size(), nullptr);
  for (size_t i : compute_order(entries)) built[i] = &build_entry(g, entries[i], built);
  return g.build(read_outputs(doc, index, built, source));
}

Graph load_graph_file(const std::string& path) {
  return parse_graph_json(read_input_file(path, "graph file"), path);
}

}  // namespace bk
