// SPDX-License-Identifier: MIT
// Graph files: one builder call per op, with its parameters.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "bk/ops.h"
#include "probe/graph_file_detail.h"

namespace bk::graph_file {
namespace {

using nlohmann::json;

const json* optional(const Entry& e, const char* key) {
  const auto it = e.json->find(key);
  return it == e.json->end() ? nullptr : &*it;
}

float float_field(const Entry& e, const char* key, std::optional<float> fallback) {
  const json* v = optional(e, key);
  if (v == nullptr) {
    if (!fallback) fail(e, fmt::format("needs \"{}\" (a number)", key));
    return *fallback;
  }
  if (!v->is_number() || !std::isfinite(v->get<double>()) || std::fabs(v->get<double>()) > 3.0e38) {
    fail(e, fmt::format("\"{}\" must be a finite number", key));
  }
  return static_cast<float>(v->get<double>());
}

int64_t int_field(const Entry& e, const json& v, const std::string& what, int64_t lo, int64_t hi) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi)) ||
      v.get<int64_t>() < lo || v.get<int64_t>() > hi) {
    fail(e, fmt::format("{} must be a whole number from {} to {}", what, lo, hi));
  }
  return v.get<int64_t>();
}

void need_sources(const Entry& e, const std::vector<Tensor*>& s, size_t lo, size_t hi, const char* names) {
  if (s.size() < lo || s.size() > hi)
    fail(e, fmt::format("needs {} in \"src\", got {} name(s)", names, s.size()));
}

Tensor& build_rope(GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& s) {
  need_sources(e, s, 2, 2, "2 sources (a, positions)");
  const json* n = optional(e, "n_dims");
  const int n_dims = n == nullptr ? static_cast<int>(std::min<int64_t>(s[0]->ne[0], 1 << 30))
                                  : static_cast<int>(int_field(e, *n, "\"n_dims\"", 1, 1 << 30));
  RopeMode mode = RopeMode::normal;
  if (const json* m = optional(e, "mode")) {
    if (!m->is_string() || (*m != "normal" && *m != "neox"))
      fail(e, "\"mode\" must be \"normal\" or \"neox\"");
    mode = *m == "neox" ? RopeMode::neox : RopeMode::normal;
  }
  return ops::rope(g, *s[0], *s[1], n_dims, mode, float_field(e, "freq_base", 10000.0f));
}

Tensor& build_cpy(GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& s) {
  need_sources(e, s, 1, 2, "1 source and \"type\" (a cast) or 2 sources (a, destination)");
  if (s.size() == 2) {
    if (optional(e, "type") != nullptr) fail(e, "a cpy into a destination takes its dtype; drop \"type\"");
    return ops::cpy(g, *s[0], *s[1]);
  }
  return ops::cast(g, *s[0], type_field(e, "type"));
}

Tensor& build_view(GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& s) {
  need_sources(e, s, 1, 1, "1 source");
  const Shape ne = shape_field(e, "shape");
  Strides nb = packed_strides(s[0]->type, ne);
  if (const json* strides = optional(e, "strides")) {
    if (!strides->is_array() || strides->empty() || strides->size() > kMaxDims) {
      fail(e, "\"strides\" must be an array of 1 to 4 byte strides");
    }
    for (size_t i = 0; i < strides->size(); ++i) {
      nb[i] = static_cast<size_t>(
          int_field(e, (*strides)[i], fmt::format("\"strides\"[{}]", i), 0, int64_t{1} << 48));
    }
  }
  const json* offset = optional(e, "offset");
  const auto off = offset == nullptr
                       ? size_t{0}
                       : static_cast<size_t>(int_field(e, *offset, "\"offset\"", 0, int64_t{1} << 48));
  return ops::view(g, *s[0], ne, nb, off);
}

Tensor& build_permute(GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& s) {
  need_sources(e, s, 1, 1, "1 source");
  const json* axes = optional(e, "axes");
  if (axes == nullptr || !axes->is_array() || axes->empty() || axes->size() > kMaxDims) {
    fail(e, "needs \"axes\": where each dimension of the source goes, e.g. [0, 2, 1, 3]");
  }
  std::array<int, kMaxDims> a{0, 1, 2, 3};
  for (size_t i = 0; i < axes->size(); ++i)
    a[i] = static_cast<int>(int_field(e, (*axes)[i], "an axis", 0, kMaxDims - 1));
  return ops::permute(g, *s[0], a);
}

using Builder = Tensor& (*)(GraphBuilder&, const Entry&, const std::vector<Tensor*>&);
using Unary = Tensor& (*)(GraphBuilder&, Tensor&);
using Binary = Tensor& (*)(GraphBuilder&, Tensor&, Tensor&);

// Ops whose only parameters are their sources (for binary ones, `Names` says what they are).
template <Unary F>
Tensor& unary(GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& s) {
  need_sources(e, s, 1, 1, "1 source");
  return F(g, *s[0]);
}

template <Binary F, const char* Names>
Tensor& binary(GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& s) {
  need_sources(e, s, 2, 2, Names);
  return F(g, *s[0], *s[1]);
}

constexpr char kAB[] = "2 sources (a, b)";
constexpr char kWX[] = "2 sources (w, x)";
constexpr char kTableIndices[] = "2 sources (table, indices)";

struct OpSpec {
  std::vector<std::string> keys;
  Builder build;
};

const std::map<std::string, OpSpec>& op_table() {
  static const std::map<std::string, OpSpec> table{
      {"add", {{}, &binary<&ops::add, kAB>}},
      {"mul", {{}, &binary<&ops::mul, kAB>}},
      {"scale",
       {{"scale"},
        [](GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& s) -> Tensor& {
          need_sources(e, s, 1, 1, "1 source");
          return ops::scale(g, *s[0], float_field(e, "scale", std::nullopt));
        }}},
      {"silu", {{}, &unary<&ops::silu>}},
      {"gelu", {{}, &unary<&ops::gelu>}},
      {"mul_mat", {{}, &binary<&ops::mul_mat, kWX>}},
      {"rms_norm",
       {{"eps"},
        [](GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& s) -> Tensor& {
          need_sources(e, s, 1, 1, "1 source");
          return ops::rms_norm(g, *s[0], float_field(e, "eps", 1e-5f));
        }}},
      {"soft_max",
       {{"scale"},
        [](GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& s) -> Tensor& {
          need_sources(e, s, 1, 2, "1 or 2 sources (a, and an optional mask)");
          return ops::soft_max(g, *s[0], s.size() == 2 ? s[1] : nullptr, float_field(e, "scale", 1.0f));
        }}},
      {"rope", {{"n_dims", "mode", "freq_base"}, &build_rope}},
      {"get_rows", {{}, &binary<&ops::get_rows, kTableIndices>}},
      {"cpy", {{"type"}, &build_cpy}},
      {"cast",
       {{"type"},
        [](GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& s) -> Tensor& {
          need_sources(e, s, 1, 1, "1 source");
          return ops::cast(g, *s[0], type_field(e, "type"));
        }}},
      {"cont", {{}, &unary<&ops::cont>}},
      {"reshape",
       {{"shape"},
        [](GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& s) -> Tensor& {
          need_sources(e, s, 1, 1, "1 source");
          return ops::reshape(g, *s[0], shape_field(e, "shape"));
        }}},
      {"view", {{"shape", "strides", "offset"}, &build_view}},
      {"permute", {{"axes"}, &build_permute}},
      {"transpose", {{}, &unary<&ops::transpose>}},
  };
  return table;
}

}  // namespace

const std::vector<std::string>* op_keys(const std::string& op) {
  const auto it = op_table().find(op);
  return it == op_table().end() ? nullptr : &it->second.keys;
}

Tensor& build_node(GraphBuilder& g, const Entry& e, const std::vector<Tensor*>& sources) {
  return op_table().at(e.json->at("op").get<std::string>()).build(g, e, sources);
}

}  // namespace bk::graph_file
