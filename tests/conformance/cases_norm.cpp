// SPDX-License-Identifier: MIT
// rms_norm, soft_max (plain, scaled, masked, causal) and rope (both modes, partial rotation).
#include "cases_util.h"

namespace bk::conformance {
namespace {

void add_rms_norm(std::vector<Case>& out, DType t) {
  for (Shape ne : {Shape{1, 1, 1, 1}, Shape{33, 7, 1, 1}, Shape{4097, 3, 1, 1}, Shape{64, 4, 7, 2}}) {
    out.push_back(make_case(fmt::format("rms_norm_{}_{}", dt(t), shape_name(ne)), "rms_norm", t, [=] {
      GraphBuilder g;
      Tensor& r = ops::rms_norm(g, g.input(t, ne, "a"), 1e-5f);
      return g.build({&r});
    }));
  }
  out.push_back(make_case(fmt::format("rms_norm_{}_33x7_transposed", dt(t)), "rms_norm", t, [=] {
    GraphBuilder g;
    Tensor& r = ops::rms_norm(g, ops::transpose(g, g.input(t, {7, 33, 1, 1}, "a")), 1e-6f);
    return g.build({&r});
  }));
}

struct SoftMaxCase {
  Shape a;
  Shape mask;  // ne[0] == 0: no mask
  float scale;
  bool causal;
  const char* variant;
};

constexpr SoftMaxCase kSoftMax[] = {
    {{1, 1, 1, 1}, {0, 0, 0, 0}, 1.0f, false, ""},
    {{33, 7, 1, 1}, {0, 0, 0, 0}, 1.0f, false, ""},
    {{4097, 2, 1, 1}, {0, 0, 0, 0}, 0.125f, false, "_scale"},
    {{33, 7, 4, 1}, {33, 8, 1, 1}, 0.125f, false, "_mask"},    // mask has spare rows
    {{7, 7, 4, 1}, {7, 7, 2, 1}, 1.0f, false, "_mask_bcast"},  // repeated over dim 2
    {{9, 5, 4, 1}, {9, 5, 1, 1}, 0.25f, true, "_causal"},      // -inf above the diagonal
};

void add_soft_max(std::vector<Case>& out, DType t) {
  for (const SoftMaxCase& c : kSoftMax) {
    std::map<std::string, LeafFill> fills;
    if (c.causal) fills["mask"] = causal_mask();
    out.push_back(make_case(
        fmt::format("soft_max_{}_{}{}", dt(t), shape_name(c.a), c.variant), "soft_max", t,
        [=] {
          GraphBuilder g;
          Tensor& a = g.input(t, c.a, "a");
          Tensor* mask = c.mask[0] == 0 ? nullptr : &g.input(DType::F32, c.mask, "mask");
          Tensor& r = ops::soft_max(g, a, mask, c.scale);
          return g.build({&r});
        },
        fills));
  }
  out.push_back(make_case(fmt::format("soft_max_{}_33x7_transposed", dt(t)), "soft_max", t, [=] {
    GraphBuilder g;
    Tensor& r = ops::soft_max(g, ops::transpose(g, g.input(t, {7, 33, 1, 1}, "a")), nullptr, 1.0f);
    return g.build({&r});
  }));
}

struct RopeCase {
  Shape a;  // [head_dim, n_heads, n_tokens, ne3]
  int n_dims;
  float freq_base;
  const char* variant;
};

constexpr RopeCase kRope[] = {
    {{2, 1, 1, 1}, 2, 10000.0f, ""},
    {{64, 4, 7, 1}, 64, 10000.0f, ""},
    {{64, 4, 7, 1}, 32, 10000.0f, "_partial"},  // the last 32 dims pass through
    {{128, 3, 33, 1}, 128, 500000.0f, "_base5e5"},
    {{16, 2, 5, 3}, 16, 10000.0f, ""},
};

void add_rope(std::vector<Case>& out, DType t) {
  const std::map<std::string, LeafFill> fills{{"pos", integers(0, 4096)}};
  for (RopeMode mode : {RopeMode::normal, RopeMode::neox}) {
    const std::string prefix = fmt::format("rope_{}_{}", dt(t), rope_mode_name(mode));
    for (const RopeCase& c : kRope) {
      out.push_back(make_case(
          fmt::format("{}_{}{}", prefix, shape_name(c.a), c.variant), "rope", t,
          [=] {
            GraphBuilder g;
            Tensor& pos = g.input(DType::I32, {c.a[2], 1, 1, 1}, "pos");
            Tensor& r = ops::rope(g, g.input(t, c.a, "a"), pos, c.n_dims, mode, c.freq_base);
            return g.build({&r});
          },
          fills));
    }
    // Queries as they come out of a [head_dim, tokens, heads] layout.
    out.push_back(make_case(
        fmt::format("{}_64x4x7_permuted", prefix), "rope", t,
        [=] {
          GraphBuilder g;
          Tensor& a = ops::permute(g, g.input(t, {64, 7, 4, 1}, "a"), {0, 2, 1, 3});
          Tensor& r = ops::rope(g, a, g.input(DType::I32, {7, 1, 1, 1}, "pos"), 64, mode, 10000.0f);
          return g.build({&r});
        },
        fills));
  }
}

}  // namespace

void add_norm_cases(std::vector<Case>& out) {
  for (DType t : kFloatTypes) {
    add_rms_norm(out, t);
    add_soft_max(out, t);
    add_rope(out, t);
  }
}

}  // namespace bk::conformance
