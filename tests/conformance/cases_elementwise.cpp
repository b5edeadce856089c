// SPDX-License-Identifier: MIT
// add, mul, scale, silu, gelu: odd sizes, every broadcast shape, non-contiguous sources.
#include "cases_util.h"

namespace bk::conformance {
namespace {

using BinaryFn = Tensor& (*)(GraphBuilder&, Tensor&, Tensor&);
using UnaryFn = Tensor& (*)(GraphBuilder&, Tensor&);

struct Broadcast {
  Shape a, b;
  const char* variant;  // "" when b has a's shape
};

constexpr Broadcast kBroadcasts[] = {
    {{1, 1, 1, 1}, {1, 1, 1, 1}, ""},
    {{7, 3, 1, 1}, {7, 3, 1, 1}, ""},
    {{4097, 2, 1, 1}, {4097, 2, 1, 1}, ""},
    {{33, 7, 4, 2}, {33, 7, 4, 2}, ""},
    {{33, 7, 4, 2}, {33, 1, 1, 1}, "_bcast_row"},  // a bias added to every row
    {{33, 7, 4, 2}, {1, 7, 1, 1}, "_bcast_col"},   // one value per row
    {{33, 7, 4, 2}, {1, 1, 1, 1}, "_bcast_scalar"},
    {{33, 7, 4, 2}, {33, 7, 1, 2}, "_bcast_batch"},  // repeated over dim 2 only
    {{33, 7, 4, 2}, {11, 7, 2, 1}, "_bcast_tiled"},  // b tiles a 3 times along dim 0
};

void add_binary(std::vector<Case>& out, const char* op, BinaryFn fn, DType t) {
  for (const Broadcast& bc : kBroadcasts) {
    out.push_back(make_case(fmt::format("{}_{}_{}{}", op, dt(t), shape_name(bc.a), bc.variant), op, t, [=] {
      GraphBuilder g;
      Tensor& r = fn(g, g.input(t, bc.a, "a"), g.input(t, bc.b, "b"));
      return g.build({&r});
    }));
  }
  // Non-contiguous: a transposed ([7, 33] stored, read as [33, 7]), then b permuted.
  out.push_back(make_case(fmt::format("{}_{}_33x7_transposed_a", op, dt(t)), op, t, [=] {
    GraphBuilder g;
    Tensor& a = ops::transpose(g, g.input(t, {7, 33, 1, 1}, "a"));
    Tensor& r = fn(g, a, g.input(t, {33, 7, 1, 1}, "b"));
    return g.build({&r});
  }));
  out.push_back(make_case(fmt::format("{}_{}_33x7x4_permuted_b_bcast", op, dt(t)), op, t, [=] {
    GraphBuilder g;
    Tensor& b = ops::permute(g, g.input(t, {33, 2, 7, 1}, "b"), {0, 2, 1, 3});  // read as [33, 7, 2]
    Tensor& r = fn(g, g.input(t, {33, 7, 4, 1}, "a"), b);
    return g.build({&r});
  }));
}

void add_unary(std::vector<Case>& out, const char* op, UnaryFn fn, DType t) {
  // [0.1, 6): through the curved part of the activation into its linear tail.
  const std::map<std::string, LeafFill> wide{{"a", magnitudes(0.1, 6.0)}};
  for (Shape ne : {Shape{1, 1, 1, 1}, Shape{33, 7, 1, 1}, Shape{4097, 2, 1, 1}, Shape{7, 3, 5, 2}}) {
    out.push_back(make_case(
        fmt::format("{}_{}_{}", op, dt(t), shape_name(ne)), op, t,
        [=] {
          GraphBuilder g;
          Tensor& r = fn(g, g.input(t, ne, "a"));
          return g.build({&r});
        },
        wide));
  }
  out.push_back(make_case(
      fmt::format("{}_{}_33x7_transposed", op, dt(t)), op, t,
      [=] {
        GraphBuilder g;
        Tensor& r = fn(g, ops::transpose(g, g.input(t, {7, 33, 1, 1}, "a")));
        return g.build({&r});
      },
      wide));
}

void add_scale(std::vector<Case>& out, DType t) {
  for (Shape ne : {Shape{1, 1, 1, 1}, Shape{4097, 3, 1, 1}}) {
    out.push_back(make_case(fmt::format("scale_{}_{}", dt(t), shape_name(ne)), "scale", t, [=] {
      GraphBuilder g;
      Tensor& r = ops::scale(g, g.input(t, ne, "a"), -0.37f);
      return g.build({&r});
    }));
  }
  out.push_back(make_case(fmt::format("scale_{}_33x7x2_permuted", dt(t)), "scale", t, [=] {
    GraphBuilder g;
    Tensor& a = ops::permute(g, g.input(t, {7, 2, 33, 1}, "a"), {1, 2, 0, 3});  // read as [33, 7, 2]
    Tensor& r = ops::scale(g, a, 3.5f);
    return g.build({&r});
  }));
}

}  // namespace

void add_elementwise_cases(std::vector<Case>& out) {
  for (DType t : kFloatTypes) {
    add_binary(out, "add", ops::add, t);
    add_binary(out, "mul", ops::mul, t);
    add_scale(out, t);
    add_unary(out, "silu", ops::silu, t);
    add_unary(out, "gelu", ops::gelu, t);
  }
}

}  // namespace bk::conformance
