#include "probe/smoke_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "bk/error.h"
#include "bk/ops.h"
#include "bk/tensor.h"
#include "probe/graph_buffer.h"

namespace bk {
namespace {

size_t count_of(const Tensor& t) { return static_cast<size_t>(t.nelements()); }

// A value of a source broadcast over a (ops.h: b repeats over a, dimension by dimension).
double broadcast_at(const Tensor& a, const Tensor& b, const SmokeValues& bv, size_t flat) {
  size_t rest = flat;
  size_t at = 0;
  size_t stride = 1;
  for (int d = 0; d < kMaxDims; ++d) {
    const size_t ad = static_cast<size_t>(a.ne[d]);
    const size_t i = rest % ad;
    rest /= ad;
    at += (i % static_cast<size_t>(b.ne[d])) * stride;
    stride *= static_cast<size_t>(b.ne[d]);
  }
  return bv[at];
}

SmokeValues ref_mul_mat(const Tensor& node, const SmokeValues& w, const SmokeValues& x) {
  const size_t k = static_cast<size_t>(node.src[0]->ne[0]);
  const size_t m = static_cast<size_t>(node.ne[0]);
  const size_t n = static_cast<size_t>(node.ne[1]);
  SmokeValues r(m * n);
  for (size_t j = 0; j < n; ++j)
    for (size_t i = 0; i < m; ++i) {
      double sum = 0;
      for (size_t p = 0; p < k; ++p) sum += w[p + i * k] * x[p + j * k];
      r[i + j * m] = sum;
    }
  return r;
}

// Applies f to each row of ne[0] elements.
template <typename RowFn>
SmokeValues per_row(const Tensor& node, const SmokeValues& a, RowFn f) {
  const size_t row = static_cast<size_t>(node.ne[0]);
  SmokeValues r(a.size());
  for (size_t start = 0; start < a.size(); start += row) f(&a[start], &r[start], row);
  return r;
}

SmokeValues ref_node(const Tensor& node, const std::unordered_map<const Tensor*, SmokeValues>& values) {
  const SmokeValues& a = values.at(node.src[0]);
  switch (node.op) {
    case Op::mul_mat:
      return ref_mul_mat(node, a, values.at(node.src[1]));
    case Op::add: {
      SmokeValues r(a.size());
      for (size_t i = 0; i < a.size(); ++i)
        r[i] = a[i] + broadcast_at(node, *node.src[1], values.at(node.src[1]), i);
      return r;
    }
    case Op::silu: {
      SmokeValues r(a.size());
      for (size_t i = 0; i < a.size(); ++i) r[i] = a[i] / (1 + std::exp(-a[i]));
      return r;
    }
    case Op::rms_norm: {
      const double eps = rms_norm_eps(node);
      return per_row(node, a, [eps](const double* in, double* out, size_t n) {
        double squares = 0;
        for (size_t i = 0; i < n; ++i) squares += in[i] * in[i];
        const double inv = 1 / std::sqrt(squares / static_cast<double>(n) + eps);
        for (size_t i = 0; i < n; ++i) out[i] = in[i] * inv;
      });
    }
    case Op::soft_max: {
      const double scale = soft_max_scale(node);
      return per_row(node, a, [scale](const double* in, double* out, size_t n) {
        double top = -std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < n; ++i) top = std::max(top, scale * in[i]);
        double sum = 0;
        for (size_t i = 0; i < n; ++i) sum += out[i] = std::exp(scale * in[i] - top);
        for (size_t i = 0; i < n; ++i) out[i] /= sum;
      });
    }
    default:
      throw Error(ErrorCode::unsupported,
                  fmt::format("smoke reference: op {} of node '{}' is not one the smoke graphs use",
                              op_name(node.op), node.name));
  }
}

uint64_t next_random(uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double rounded_to(DType type, double value) {
  unsigned char element[8] = {};
  store_from_double(type, element, value);
  return load_as_double(type, element);
}

}  // namespace

SmokeInputs smoke_random_inputs(const Graph& graph, uint64_t seed) {
  SmokeInputs inputs;
  uint64_t state = seed;
  for (const Tensor* leaf : graph.leafs()) {
    SmokeValues& v = inputs[leaf];
    v.resize(count_of(*leaf));
    for (double& x : v) {
      const double unit = static_cast<double>(next_random(state) >> 11) * 0x1.0p-53;
      x = rounded_to(leaf->type, 2 * unit - 1);
    }
  }
  return inputs;
}

std::unordered_map<const Tensor*, SmokeValues> smoke_reference(const Graph& graph,
                                                               const SmokeInputs& inputs) {
  std::unordered_map<const Tensor*, SmokeValues> values(inputs.begin(), inputs.end());
  for (const Tensor* node : graph.nodes()) values[node] = ref_node(*node, values);
  return values;
}

double smoke_nmse(const SmokeValues& got, const SmokeValues& want) {
  double error = 0;
  double norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (i >= got.size() || !std::isfinite(got[i])) return std::numeric_limits<double>::infinity();
    error += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return norm > 0 ? error / norm : error;
}

SmokeGraphRun::SmokeGraphRun(Device& device, Graph& graph)
    : graph_(&graph), buffer_(place_graph_poisoned(device.buffer_type(), graph)) {}

SmokeGraphRun::~SmokeGraphRun() = default;

void SmokeGraphRun::write_inputs(const SmokeInputs& inputs) {
  for (Tensor* leaf : graph_->leafs()) {
    const SmokeValues& v = inputs.at(leaf);
    const size_t esize = dtype_size(leaf->type);
    std::vector<unsigned char> bytes(v.size() * esize);
    for (size_t i = 0; i < v.size(); ++i) store_from_double(leaf->type, bytes.data() + i * esize, v[i]);
    buffer_->set_tensor(*leaf, bytes.data(), 0, bytes.size());
  }
}

void SmokeGraphRun::compute(Backend& backend) {
  backend.compute(*graph_);
  backend.synchronize();
}

SmokeValues SmokeGraphRun::read(const Tensor& tensor) const {
  std::vector<unsigned char> bytes(tensor.nbytes());
  tensor.buffer->get_tensor(tensor, bytes.data(), 0, bytes.size());
  const size_t esize = dtype_size(tensor.type);
  SmokeValues out(count_of(tensor));
  for (size_t i = 0; i < out.size(); ++i) out[i] = load_as_double(tensor.type, bytes.data() + i * esize);
  return out;
}

}  // namespace bk
