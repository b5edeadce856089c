// SPDX-License-Identifier: MIT
// What the CPU kernels compute, checked per node: the dtypes each kernel has loops for and the
// shape relations it relies on (the builders in core/ops.h guarantee them; a node made by hand
// with GraphBuilder::node may not).
#include <fmt/format.h>

#include "bk/ops.h"
#include "devices/cpu/kernels/op_kernels.h"

namespace bk {
namespace {

// Every rule below is written once and read two ways. Quick answers "can the CPU run it" and
// builds no message: the scheduler asks it of every node each time it schedules a graph.
// Explain builds the message for the node's first broken rule.
struct Quick {
  using Result = bool;  // true: a rule is broken
  static Result ok() { return false; }
  template <typename Message>
  static Result fail(const Message& /*message*/) {
    return true;
  }
  static bool failed(Result r) { return r; }
};

struct Explain {
  using Result = std::string;
  static Result ok() { return {}; }
  template <typename Message>
  static Result fail(const Message& message) {
    return message();
  }
  static bool failed(const Result& r) { return !r.empty(); }
};

bool is_float(const Tensor& t) { return dtype_traits(t.type).is_float; }

std::string describe(const char* role, const Tensor& t) {
  return fmt::format("{} '{}' {} {}", role, t.name, dtype_name(t.type), t.shape_string());
}

// Quantized weights and tables are read a packed row of blocks at a time.
template <class P>
typename P::Result float_or_packed_quantized(const char* role, const Tensor& t) {
  if (is_quantized(t.type)) {
    if (t.is_contiguous()) return P::ok();
    return P::fail([&] { return describe(role, t) + " is quantized but not contiguous"; });
  }
  if (is_float(t)) return P::ok();
  return P::fail([&] { return describe(role, t) + " is not f32, f16, bf16 or quantized"; });
}

bool divides(const Shape& big, const Shape& small) {
  for (size_t i = 0; i < kMaxDims; ++i) {
    if (small[i] == 0 || big[i] % small[i] != 0) return false;
  }
  return true;
}

// The same-dtype, same-shape rule of the element-wise ops and the row ops.
template <class P>
typename P::Result elementwise(const Tensor& node) {
  const Tensor& a = *node.src[0];
  if (!is_float(a)) return P::fail([&] { return describe("source a", a) + " is not f32, f16 or bf16"; });
  if (node.type != a.type || !same_shape(node, a)) {
    return P::fail([&] {
      return fmt::format("the result ({} {}) must have the dtype and shape of {}", dtype_name(node.type),
                         node.shape_string(), describe("a", a));
    });
  }
  return P::ok();
}

template <class P>
typename P::Result binary(const Tensor& node) {
  if (auto why = elementwise<P>(node); P::failed(why)) return why;
  const Tensor& b = *node.src[1];
  if (!is_float(b)) return P::fail([&] { return describe("source b", b) + " is not f32, f16 or bf16"; });
  if (!divides(node.ne, b.ne))
    return P::fail(
        [&] { return describe("b", b) + " does not broadcast over the result " + node.shape_string(); });
  return P::ok();
}

template <class P>
typename P::Result mul_mat(const Tensor& node) {
  const Tensor& w = *node.src[0];
  const Tensor& x = *node.src[1];
  if (auto why = float_or_packed_quantized<P>("weights w", w); P::failed(why)) return why;
  if (x.type != DType::F32)
    return P::fail(
        [&] { return describe("activations x", x) + " are not f32 (convert them with cast first)"; });
  const Shape want{w.ne[1], x.ne[1], x.ne[2], x.ne[3]};
  if (w.ne[0] != x.ne[0] || x.ne[2] % w.ne[2] != 0 || x.ne[3] % w.ne[3] != 0 || node.ne != want) {
    return P::fail([&] {
      return fmt::format("shapes do not match: {}, {}, result {}", describe("w", w), describe("x", x),
                         node.shape_string());
    });
  }
  if (node.type != DType::F32 || node.nb[0] != sizeof(float) || node.nb[1] % sizeof(float) != 0)
    return P::fail([] { return std::string("the result must be f32 with contiguous rows"); });
  return P::ok();
}

template <class P>
typename P::Result soft_max(const Tensor& node) {
  if (auto why = elementwise<P>(node); P::failed(why)) return why;
  const Tensor* mask = node.src[1];
  if (mask == nullptr) return P::ok();
  if (mask->type != DType::F32) return P::fail([&] { return describe("mask", *mask) + " is not f32"; });
  if (mask->ne[0] != node.ne[0] || mask->ne[1] < node.ne[1] || node.ne[2] % mask->ne[2] != 0 ||
      node.ne[3] % mask->ne[3] != 0)
    return P::fail(
        [&] { return describe("mask", *mask) + " does not fit the rows of " + node.shape_string(); });
  return P::ok();
}

template <class P>
typename P::Result rope(const Tensor& node) {
  if (auto why = elementwise<P>(node); P::failed(why)) return why;
  const Tensor& pos = *node.src[1];
  const RopeParams p = rope_params(node);
  if (pos.type != DType::I32 || pos.ne[0] < node.ne[2])
    return P::fail([&] { return describe("positions", pos) + " must be i32, one per token"; });
  if (p.n_dims <= 0 || p.n_dims % 2 != 0 || p.n_dims > node.ne[0])
    return P::fail([&] { return fmt::format("n_dims {} is not even in (0, {}]", p.n_dims, node.ne[0]); });
  if (p.mode != RopeMode::normal && p.mode != RopeMode::neox)
    return P::fail([] { return std::string("the rope mode is neither normal nor neox"); });
  return P::ok();
}

template <class P>
typename P::Result get_rows(const Tensor& node) {
  const Tensor& table = *node.src[0];
  const Tensor& ids = *node.src[1];
  if (auto why = float_or_packed_quantized<P>("table", table); P::failed(why)) return why;
  if (ids.type != DType::I32) return P::fail([&] { return describe("indices", ids) + " are not i32"; });
  const Shape want{table.ne[0], ids.ne[0], ids.ne[1], ids.ne[2]};
  if (node.type != DType::F32 || node.ne != want || ids.ne[1] != table.ne[2] || ids.ne[2] != table.ne[3]) {
    return P::fail([&] {
      return fmt::format("shapes do not match: {}, {}, result {} {}", describe("table", table),
                         describe("indices", ids), dtype_name(node.type), node.shape_string());
    });
  }
  return P::ok();
}

template <class P>
typename P::Result copy(const Tensor& node) {
  const Tensor& a = *node.src[0];
  if (a.nelements() != node.nelements())
    return P::fail([&] { return describe("source a", a) + " has another element count than the result"; });
  if (a.type == node.type) return P::ok();  // bytes are copied, whatever the dtype
  if (!is_float(a) || !is_float(node)) {
    return P::fail([&] {
      return fmt::format("no conversion from {} to {}: the CPU converts between f32, f16 and bf16",
                         dtype_name(a.type), dtype_name(node.type));
    });
  }
  return P::ok();
}

template <class P>
typename P::Result check(const Tensor& node) {
  switch (node.op) {
    case Op::add:
    case Op::mul:
      return binary<P>(node);
    case Op::scale:
    case Op::silu:
    case Op::gelu:
    case Op::rms_norm:
      return elementwise<P>(node);
    case Op::mul_mat:
      return mul_mat<P>(node);
    case Op::soft_max:
      return soft_max<P>(node);
    case Op::rope:
      return rope<P>(node);
    case Op::get_rows:
      return get_rows<P>(node);
    case Op::cpy:
    case Op::cont:
      return copy<P>(node);
    case Op::none:
    case Op::reshape:
    case Op::view:
    case Op::permute:
    case Op::transpose:
      return P::ok();
  }
  return P::fail([] { return std::string("an op this build does not know"); });
}

bool sources_present(const Tensor& node) {
  const int needed = node.op == Op::add || node.op == Op::mul || node.op == Op::mul_mat ||
                             node.op == Op::rope || node.op == Op::get_rows
                         ? 2
                         : 1;
  for (int i = 0; i < needed; ++i) {
    if (node.src[static_cast<size_t>(i)] == nullptr) return false;
  }
  return true;
}

bool computes(const Tensor& node) { return node.op != Op::none && !op_is_view(node.op); }

}  // namespace

bool cpu_op_supported(const Tensor& node) {
  return !computes(node) || (sources_present(node) && !check<Quick>(node));
}

std::string cpu_op_unsupported_reason(const Tensor& node) {
  if (!computes(node)) return {};
  if (!sources_present(node))
    return fmt::format("CPU cannot compute {} node '{}': a source is missing", op_name(node.op), node.name);
  std::string why = check<Explain>(node);
  if (why.empty()) return why;
  return fmt::format("CPU cannot compute {} node '{}': {}", op_name(node.op), node.name, why);
}

}  // namespace bk
