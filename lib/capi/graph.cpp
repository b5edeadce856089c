// SPDX-License-Identifier: MIT
// The C API's graph builder: leafs, the ops of bk/ops.h by name, outputs. A graph is built (a
// bk::Graph) when it is first scheduled (sched.cpp), after which it takes no more tensors.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "bk/ops.h"
#include "capi/errors.h"
#include "capi/graph_build.h"
#include "capi/handles.h"

namespace bk::capi {
namespace {

// An op the C API builds: how many sources it takes (kOptional: a, and b or NULL), whether it
// takes a number (bk_graph_op_f), and the builder call.
constexpr int kOptional = -1;
struct OpForm {
  std::string_view name;
  int sources;
  bool value;
  Tensor& (*make)(GraphBuilder& g, Tensor& a, Tensor* b, float value);
};

constexpr std::array kForms = {
    OpForm{"add", 2, false,
           [](GraphBuilder& g, Tensor& a, Tensor* b, float) -> Tensor& { return ops::add(g, a, *b); }},
    OpForm{"mul", 2, false,
           [](GraphBuilder& g, Tensor& a, Tensor* b, float) -> Tensor& { return ops::mul(g, a, *b); }},
    OpForm{"mul_mat", 2, false,
           [](GraphBuilder& g, Tensor& a, Tensor* b, float) -> Tensor& { return ops::mul_mat(g, a, *b); }},
    OpForm{"get_rows", 2, false,
           [](GraphBuilder& g, Tensor& a, Tensor* b, float) -> Tensor& { return ops::get_rows(g, a, *b); }},
    OpForm{"cpy", 2, false,
           [](GraphBuilder& g, Tensor& a, Tensor* b, float) -> Tensor& { return ops::cpy(g, a, *b); }},
    OpForm{"silu", 1, false,
           [](GraphBuilder& g, Tensor& a, Tensor*, float) -> Tensor& { return ops::silu(g, a); }},
    OpForm{"gelu", 1, false,
           [](GraphBuilder& g, Tensor& a, Tensor*, float) -> Tensor& { return ops::gelu(g, a); }},
    OpForm{"cont", 1, false,
           [](GraphBuilder& g, Tensor& a, Tensor*, float) -> Tensor& { return ops::cont(g, a); }},
    OpForm{"transpose", 1, false,
           [](GraphBuilder& g, Tensor& a, Tensor*, float) -> Tensor& { return ops::transpose(g, a); }},
    OpForm{"scale", 1, true,
           [](GraphBuilder& g, Tensor& a, Tensor*, float v) -> Tensor& { return ops::scale(g, a, v); }},
    OpForm{"rms_norm", 1, true,
           [](GraphBuilder& g, Tensor& a, Tensor*, float v) -> Tensor& { return ops::rms_norm(g, a, v); }},
    OpForm{
        "soft_max", kOptional, true,
        [](GraphBuilder& g, Tensor& a, Tensor* b, float v) -> Tensor& { return ops::soft_max(g, a, b, v); }},
};

std::string names_of(bool value) {
  std::string out;
  for (const OpForm& f : kForms) {
    if (f.value != value) continue;
    out += (out.empty() ? "" : ", ") + std::string(f.name);
  }
  return out;
}

const OpForm& form_of(std::string_view op, bool value) {
  for (const OpForm& f : kForms) {
    if (f.name != op) continue;
    if (f.value == value) return f;
    invalid("op '" + std::string(op) +
            (f.value ? "' takes a number: use bk_graph_op_f" : "' takes no number: use bk_graph_op"));
  }
  invalid("unknown op '" + std::string(op) + "'; this function builds " + names_of(value));
}

void check_sources(const OpForm& f, const bk_tensor* b) {
  const std::string op(f.name);
  if (f.sources == 2 && b == nullptr) invalid("b is NULL: " + op + " takes two sources");
  if (f.sources == 1 && b != nullptr) invalid(op + " takes one source: b must be NULL");
}

Tensor& add_op(bk_graph& g, const char* op, const char* name, bk_tensor* a, bk_tensor* b, bool with_value,
               float value) {
  require(op, "op");
  const OpForm& f = form_of(op, with_value);
  check_sources(f, b);
  Tensor& ta = owned_tensor(g, require(a, "a"), "a");
  Tensor* tb = b != nullptr ? &owned_tensor(g, *b, "b") : nullptr;
  check_open(g);
  Tensor& out = f.make(g.builder, ta, tb, value);
  if (name != nullptr) out.name = name;
  g.tensors.insert(&out);
  return out;
}

Tensor& add_leaf(bk_graph& g, const char* name, bk_dtype type, const Shape& ne, bool weight) {
  require(name, "name");
  check_open(g);
  const int code = static_cast<int>(type);
  // The C API names the plain dtypes only; quantized weights are not part of it (yet).
  if (code < 0 || code > BK_DTYPE_I32) invalid("type " + std::to_string(code) + " is not a bk_dtype");
  const DType dtype = static_cast<DType>(type);
  Tensor& t = weight ? g.builder.weight(dtype, ne, name) : g.builder.input(dtype, ne, name);
  g.tensors.insert(&t);
  return t;
}

static_assert(BK_DTYPE_F32 == static_cast<int>(DType::F32) && BK_DTYPE_F16 == static_cast<int>(DType::F16) &&
              BK_DTYPE_BF16 == static_cast<int>(DType::BF16) && BK_DTYPE_I32 == static_cast<int>(DType::I32));

}  // namespace

Tensor& owned_tensor(const bk_graph& g, bk_tensor& handle, const char* what) {
  Tensor& t = tensor_of(&handle);
  if (!g.tensors.contains(&t)) invalid(std::string(what) + " is a tensor of another graph");
  return t;
}

void check_open(const bk_graph& g) {
  if (g.graph.has_value())
    invalid("the graph was scheduled, so it is built and takes no more tensors or outputs; make a new graph");
}

Graph& built_graph(bk_graph& g) {
  if (g.graph.has_value()) return *g.graph;
  if (g.outputs.empty()) invalid("the graph has no output: mark one with bk_graph_output");
  g.graph.emplace(g.builder.build(g.outputs));
  return *g.graph;
}

}  // namespace bk::capi

using bk::capi::guard;
using bk::capi::require;
using bk::capi::reset;

extern "C" {

BK_API bk_status bk_graph_new(bk_graph** out) {
  reset(out);
  return guard("bk_graph_new", [&] {
    bk_graph*& slot = require(out, "out");  // before the allocation, which would leak otherwise
    slot = new bk_graph();
  });
}

BK_API void bk_graph_free(bk_graph* graph) { delete graph; }

BK_API bk_status bk_graph_input(bk_graph* graph, const char* name, bk_dtype type, int64_t ne0, int64_t ne1,
                                int64_t ne2, int64_t ne3, bk_tensor** out) {
  reset(out);
  return guard("bk_graph_input", [&] {
    require(out, "out");
    *out = bk::capi::handle_of(
        bk::capi::add_leaf(require(graph, "graph"), name, type, {ne0, ne1, ne2, ne3}, false));
  });
}

BK_API bk_status bk_graph_weight(bk_graph* graph, const char* name, bk_dtype type, int64_t ne0, int64_t ne1,
                                 int64_t ne2, int64_t ne3, bk_tensor** out) {
  reset(out);
  return guard("bk_graph_weight", [&] {
    require(out, "out");
    *out = bk::capi::handle_of(
        bk::capi::add_leaf(require(graph, "graph"), name, type, {ne0, ne1, ne2, ne3}, true));
  });
}

BK_API bk_status bk_graph_op(bk_graph* graph, const char* op, const char* name, bk_tensor* a, bk_tensor* b,
                             bk_tensor** out) {
  reset(out);
  return guard("bk_graph_op", [&] {
    require(out, "out");
    *out = bk::capi::handle_of(bk::capi::add_op(require(graph, "graph"), op, name, a, b, false, 0.0f));
  });
}

BK_API bk_status bk_graph_op_f(bk_graph* graph, const char* op, const char* name, bk_tensor* a, bk_tensor* b,
                               float value, bk_tensor** out) {
  reset(out);
  return guard("bk_graph_op_f", [&] {
    require(out, "out");
    *out = bk::capi::handle_of(bk::capi::add_op(require(graph, "graph"), op, name, a, b, true, value));
  });
}

BK_API bk_status bk_graph_output(bk_graph* graph, bk_tensor* tensor) {
  return guard("bk_graph_output", [&] {
    bk_graph& g = require(graph, "graph");
    bk::Tensor& t = bk::capi::owned_tensor(g, require(tensor, "tensor"), "tensor");
    bk::capi::check_open(g);
    if (std::find(g.outputs.begin(), g.outputs.end(), &t) == g.outputs.end()) g.outputs.push_back(&t);
  });
}

BK_API const char* bk_tensor_name(const bk_tensor* tensor) {
  return bk::capi::get("bk_tensor_name", static_cast<const char*>(nullptr), [&] {
    return reinterpret_cast<const bk::Tensor&>(require(tensor, "tensor")).name.c_str();
  });
}

}  // extern "C"
