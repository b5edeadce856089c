// SPDX-License-Identifier: MIT
// get_rows, cpy / cast between every pair of float dtypes, cont, and the views as sources and
// as outputs.
#include "cases_util.h"

namespace bk::conformance {
namespace {

void add_get_rows(std::vector<Case>& out, DType t) {
  struct Shapes {
    Shape table, ids;
    const char* variant;
  };
  const Shapes shapes[] = {
      {{33, 100, 1, 1}, {7, 1, 1, 1}, ""},
      {{4097, 5, 1, 1}, {1, 1, 1, 1}, ""},
      {{1, 7, 1, 1}, {7, 1, 1, 1}, ""},
      {{8, 10, 3, 2}, {4, 3, 2, 1}, "_batched"},
  };
  for (const Shapes& s : shapes) {
    out.push_back(make_case(
        fmt::format("get_rows_{}_{}_{}{}", dt(t), shape_name(s.table), s.ids[0], s.variant), "get_rows", t,
        [=] {
          GraphBuilder g;
          Tensor& r = ops::get_rows(g, g.weight(t, s.table, "table"), g.input(DType::I32, s.ids, "ids"));
          return g.build({&r});
        },
        {{"ids", integers(0, s.table[1])}}));
  }
  out.push_back(make_case(fmt::format("get_rows_{}_33x100_7_transposed_table", dt(t)), "get_rows", t,
                          [=] {
                            GraphBuilder g;
                            Tensor& table = ops::transpose(g, g.weight(t, {100, 33, 1, 1}, "table"));
                            Tensor& r = ops::get_rows(g, table, g.input(DType::I32, {7, 1, 1, 1}, "ids"));
                            return g.build({&r});
                          },
                          {{"ids", integers(0, 100)}}));
}

void add_conversions(std::vector<Case>& out, DType from, DType to) {
  const std::string pair = fmt::format("{}_{}", dt(from), dt(to));
  out.push_back(make_case(fmt::format("cpy_{}_4097x3", pair), "cpy", to, [=] {
    GraphBuilder g;
    Tensor& r = ops::cpy(g, g.input(from, {4097, 3, 1, 1}, "a"), g.input(to, {4097, 3, 1, 1}, "b"));
    return g.build({&r});
  }));
  out.push_back(make_case(fmt::format("cast_{}_33x7x2", pair), "cpy", to, [=] {
    GraphBuilder g;
    Tensor& r = ops::cast(g, g.input(from, {33, 7, 2, 1}, "a"), to);
    return g.build({&r});
  }));
  out.push_back(make_case(fmt::format("cpy_{}_33x7_transposed_src", pair), "cpy", to, [=] {
    GraphBuilder g;
    Tensor& a = ops::transpose(g, g.input(from, {7, 33, 1, 1}, "a"));
    Tensor& r = ops::cpy(g, a, g.input(to, {33, 7, 1, 1}, "b"));
    return g.build({&r});
  }));
}

void add_copy_layouts(std::vector<Case>& out) {
  // A new K/V entry written into rows 3..9 of a cache: the destination is a view at an offset.
  out.push_back(make_case("cpy_f32_f16_64x7_into_view", "cpy", DType::F16, [] {
    GraphBuilder g;
    Tensor& cache = g.input(DType::F16, {64, 16, 1, 1}, "cache");
    Tensor& slot = ops::view(g, cache, {64, 7, 1, 1}, cache.nb, 3 * cache.nb[1]);
    Tensor& r = ops::cpy(g, g.input(DType::F32, {64, 7, 1, 1}, "a"), slot);
    return g.build({&r});
  }));
  // The V cache is stored transposed: the destination view is strided in dim 0.
  out.push_back(make_case("cpy_f32_f32_7x64_into_transposed_view", "cpy", DType::F32, [] {
    GraphBuilder g;
    Tensor& cache = g.input(DType::F32, {16, 64, 1, 1}, "cache");  // [tokens, head_dim]
    Tensor& slot = ops::view(g, cache, {64, 7, 1, 1},
                             {cache.nb[1], cache.nb[0], cache.nbytes(), cache.nbytes()}, 2 * cache.nb[0]);
    Tensor& r = ops::cpy(g, g.input(DType::F32, {64, 7, 1, 1}, "a"), slot);
    return g.build({&r, &cache});
  }));
  out.push_back(make_case("cpy_f32_bf16_6x2_to_3x4", "cpy", DType::BF16, [] {
    GraphBuilder g;
    Tensor& r = ops::cpy(g, g.input(DType::F32, {6, 2, 1, 1}, "a"), g.input(DType::BF16, {3, 4, 1, 1}, "b"));
    return g.build({&r});
  }));
}

void add_cont(std::vector<Case>& out, DType t) {
  struct Layout {
    Shape stored;
    std::array<int, kMaxDims> axes;
    const char* variant;
  };
  const Layout layouts[] = {
      {{7, 33, 1, 1}, {1, 0, 2, 3}, "transposed"},
      {{64, 4, 7, 2}, {0, 2, 1, 3}, "permuted0213"},
      {{4, 7, 2, 64}, {1, 2, 3, 0}, "permuted1230"},  // dim 0 of the result is the slowest stored
  };
  for (const Layout& l : layouts) {
    Shape ne{};
    for (size_t i = 0; i < kMaxDims; ++i) ne[static_cast<size_t>(l.axes[i])] = l.stored[i];
    out.push_back(make_case(fmt::format("cont_{}_{}_{}", dt(t), shape_name(ne), l.variant), "cont", t, [=] {
      GraphBuilder g;
      Tensor& r = ops::cont(g, ops::permute(g, g.input(t, l.stored, "a"), l.axes));
      return g.build({&r});
    }));
  }
  // Every other column of a [33, 14] tensor, from column 1.
  out.push_back(make_case(fmt::format("cont_{}_16x14_view_strided", dt(t)), "cont", t, [=] {
    GraphBuilder g;
    Tensor& a = g.input(t, {33, 14, 1, 1}, "a");
    Tensor& v = ops::view(g, a, {16, 14, 1, 1}, {2 * a.nb[0], a.nb[1], a.nbytes(), a.nbytes()}, a.nb[0]);
    Tensor& r = ops::cont(g, v);
    return g.build({&r});
  }));
}

void add_views(std::vector<Case>& out, DType t) {
  out.push_back(make_case(fmt::format("reshape_{}_33x7x2_add", dt(t)), "reshape", t, [=] {
    GraphBuilder g;
    Tensor& a = ops::reshape(g, g.input(t, {33, 14, 1, 1}, "a"), {33, 7, 2, 1});
    Tensor& r = ops::add(g, a, g.input(t, {33, 1, 1, 1}, "b"));
    return g.build({&r});
  }));
  // The output is itself a view: the device must compute its source and leave the layout alone.
  out.push_back(make_case(fmt::format("transpose_{}_7x33_of_scale", dt(t)), "transpose", t, [=] {
    GraphBuilder g;
    Tensor& r = ops::transpose(g, ops::scale(g, g.input(t, {33, 7, 1, 1}, "a"), 2.0f));
    return g.build({&r});
  }));
  out.push_back(make_case(fmt::format("view_{}_33x3_rows_of_mul", dt(t)), "view", t, [=] {
    GraphBuilder g;
    Tensor& a = g.input(t, {33, 7, 1, 1}, "a");
    Tensor& rows = ops::view(g, a, {33, 3, 1, 1}, a.nb, 2 * a.nb[1]);
    Tensor& r = ops::mul(g, rows, g.input(t, {33, 3, 1, 1}, "b"));
    return g.build({&r});
  }));
}

}  // namespace

void add_data_cases(std::vector<Case>& out) {
  for (DType t : kFloatTypes) add_get_rows(out, t);
  for (DType from : kFloatTypes) {
    for (DType to : kFloatTypes) add_conversions(out, from, to);
  }
  add_copy_layouts(out);
  for (DType t : kFloatTypes) {
    add_cont(out, t);
    add_views(out, t);
  }
}

}  // namespace bk::conformance
