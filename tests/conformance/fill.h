#pragma once
// Fresh input data for a case's leafs.

#include <random>

#include "cases.h"
#include "reference.h"

namespace bk::conformance {

// Values for one leaf in logical order, as doubles before rounding to the leaf's dtype.
// Throws Error(invalid_argument) for an I32 leaf without an integers fill (a broken case).
ref::Values fill_leaf(const Tensor& leaf, const LeafFill& fill, std::mt19937_64& rng);

// Fills every leaf of the graph in leafs() order, looking fills up by leaf name.
ref::LeafValues fill_leafs(const Graph& graph, const Case& c, std::mt19937_64& rng);

}  // namespace bk::conformance
