// SPDX-License-Identifier: MIT
#pragma once
// The float64 reference evaluator: computes every op of bk/ops.h from element values read
// through each tensor's strides, so that it sees exactly the layouts the devices see
// (permuted, transposed and offset views, copies into views of other tensors).
//
// Memory model: every tensor that owns storage (a leaf, or a node that is not a view) has one
// array of doubles, one slot per element position of its bytes; views and cpy results address
// their source's array with their own offset and strides. A value stored into a tensor is
// rounded to that tensor's dtype (F16, BF16, F32), as a device's memory would round it, so that
// comparing with a device measures its arithmetic and not the storage format. All arithmetic is
// in double; the formulas are those written in bk/ops.h.
//
// The one reference of the probe: the conformance suite, `bkctl smoke`, `bkctl bench` and
// `bkctl sched --run` all judge devices against it (with verify/nmse.h and verify/limits.h).
// No device computes here, so the CPU backend is a device under test like the others.
//
// Cost: every element in double, one pass over the graph in node order; mul_mat takes K
// multiply-adds per output element (a few ns each), so a graph of ~1e8 multiply-adds takes
// ~0.1 s. Memory: one double per element of every tensor that owns storage.
// Threading: a Reference is immutable after construction; values() may be called from several
// threads at once.
// Errors: Error(invalid_argument) for a leaf without values or with the wrong count, for a
// tensor that is not part of the graph, and for a get_rows index outside its table.

#include <unordered_map>
#include <vector>

#include "bk/graph.h"
#include "bk/tensor.h"

namespace bk::verify {

// Values of a tensor in logical order: element (i0, i1, i2, i3) is at
// i0 + ne0 * (i1 + ne1 * (i2 + ne2 * i3)). Integers (I32) are held as exact doubles.
using Values = std::vector<double>;
using LeafValues = std::unordered_map<const Tensor*, Values>;

class Reference {
 public:
  // Evaluates every node of graph, in order, from the values of its leafs (each rounded to its
  // leaf's dtype first: a quantized leaf's values go through its blocks, quant_values.h). Takes
  // `leafs` by value so that a caller done with them can move them in (the storage of packed
  // leafs then reuses their arrays: a model's weights are most of the memory). The graph's
  // tensors are the keys of values(), so the graph must outlive the Reference.
  Reference(const Graph& graph, LeafValues leafs);
  // The same from values read back from storage (decoded from a device's blocks or a model
  // file's): already the dtype's values, taken as they are.
  struct Stored {};
  Reference(const Graph& graph, LeafValues leafs, Stored);

  // The values of any tensor of the graph (leaf, node or view) after evaluation, logical order.
  Values values(const Tensor& tensor) const;

 private:
  Reference(const Graph& graph, LeafValues leafs, bool stored);
  struct Storage {
    DType type;
    std::vector<double> slots;
  };
  const Storage& storage_of(const Tensor& tensor) const;
  Storage& storage_of(const Tensor& tensor);
  void store(const Tensor& tensor, const Values& values);

  std::unordered_map<const Tensor*, Storage> storage_;
};

// Rounds a double to what a tensor of this dtype would hold (the identity for I32 integers).
double round_to(DType type, double value) noexcept;

}  // namespace bk::verify
