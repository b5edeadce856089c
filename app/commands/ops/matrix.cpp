// SPDX-License-Identifier: MIT
#include "commands/ops/matrix.h"

#include <fmt/format.h>

#include <array>

#include "bk/graph.h"
#include "bk/ops.h"

namespace bkctl {
namespace {

using bk::DType;
using bk::GraphBuilder;
using bk::Op;
using bk::Tensor;

constexpr std::array<DType, 3> kFloatTypes{DType::F32, DType::F16, DType::BF16};
// Weights only: what mul_mat (as w) and get_rows (as the table) also take.
constexpr std::array<DType, 4> kQuantizedTypes{DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K};

// A quantized weight's probe: rows of one q4_k / q6_k block (256), which every type divides.
Tensor& build_quantized_probe(GraphBuilder& g, const OpProbe& p) {
  Tensor& w = g.weight(p.dtype, {256, 4, 1, 1}, "w");
  if (p.op == Op::mul_mat) return bk::ops::mul_mat(g, w, g.input(DType::F32, {256, 8, 2, 1}, "x"));
  return bk::ops::get_rows(g, w, g.input(DType::I32, {3, 1, 1, 1}, "ids"));
}

// A representative node: [64, 4, 2] operands in the probe's dtype (attention-like for rope and
// soft_max, one batch of 8 activation columns for mul_mat).
Tensor& build_probe(GraphBuilder& g, const OpProbe& p) {
  if (bk::is_quantized(p.dtype)) return build_quantized_probe(g, p);
  Tensor& a = g.input(p.dtype, {64, 4, 2, 1}, "a");
  switch (p.op) {
    case Op::add:
      return bk::ops::add(g, a, g.input(p.dtype, {64, 1, 1, 1}, "b"));
    case Op::mul:
      return bk::ops::mul(g, a, g.input(p.dtype, {64, 1, 1, 1}, "b"));
    case Op::scale:
      return bk::ops::scale(g, a, 0.5f);
    case Op::silu:
      return bk::ops::silu(g, a);
    case Op::gelu:
      return bk::ops::gelu(g, a);
    case Op::mul_mat:
      return bk::ops::mul_mat(g, a, g.input(DType::F32, {64, 8, 2, 1}, "x"));
    case Op::rms_norm:
      return bk::ops::rms_norm(g, a, 1e-5f);
    case Op::soft_max:
      return bk::ops::soft_max(g, a, &g.input(DType::F32, {64, 4, 1, 1}, "mask"), 0.125f);
    case Op::rope:
      return bk::ops::rope(g, a, g.input(DType::I32, {2, 1, 1, 1}, "pos"), 64, bk::RopeMode::neox, 10000.0f);
    case Op::get_rows:
      return bk::ops::get_rows(g, a, g.input(DType::I32, {3, 2, 1, 1}, "ids"));
    case Op::cpy:
      return bk::ops::cpy(g, a, g.input(p.to, {64, 4, 2, 1}, "b"));
    case Op::cont:
      return bk::ops::cont(g, bk::ops::transpose(g, a));
    case Op::reshape:
      return bk::ops::reshape(g, a, {64, 8, 1, 1});
    case Op::view:
      return bk::ops::view(g, a, {64, 2, 1, 1}, a.nb, a.nb[1]);
    case Op::permute:
      return bk::ops::permute(g, a, {0, 2, 1, 3});
    case Op::transpose:
      return bk::ops::transpose(g, a);
    case Op::none:
      break;
  }
  return a;
}

}  // namespace

std::vector<OpProbe> op_probes() {
  std::vector<OpProbe> out;
  for (int i = 1; i < bk::kOpCount; ++i) {
    const auto op = static_cast<Op>(i);
    for (DType t : kFloatTypes) {
      if (op != Op::cpy) {
        out.push_back({op, t, t, std::string(bk::dtype_name(t))});
        continue;
      }
      for (DType to : kFloatTypes)
        out.push_back({op, t, to, fmt::format("{}->{}", bk::dtype_name(t), bk::dtype_name(to))});
    }
    if (op != Op::mul_mat && op != Op::get_rows) continue;
    for (DType t : kQuantizedTypes) out.push_back({op, t, t, std::string(bk::dtype_name(t))});
  }
  return out;
}

OpVerdict probe_device(const bk::Device& device, const OpProbe& probe) {
  GraphBuilder g;
  const Tensor& node = build_probe(g, probe);
  OpVerdict v;
  v.supported = device.supports_op(node);
  if (!v.supported) {
    v.reason = device.unsupported_reason(node);
    if (v.reason.empty()) v.reason = "supports_op is false; the device gives no reason";
  }
  return v;
}

}  // namespace bkctl
