// SPDX-License-Identifier: MIT
#pragma once
// Fresh input data for a case's leafs, from the probe's one generator (probe/verify/rng.h).

#include "cases.h"
#include "probe/verify/reference.h"
#include "probe/verify/rng.h"

namespace bk::conformance {

// Values for one leaf in logical order, as doubles before rounding to the leaf's dtype; the same
// rng state gives the same values. Throws Error(invalid_argument) for a fill that does not suit
// the leaf's dtype (an I32 leaf without an integers fill: a broken case).
verify::Values fill_leaf(const Tensor& leaf, const LeafFill& fill, verify::SplitMix64& rng);

// Fills every leaf of the graph in leafs() order, looking fills up by leaf name.
verify::LeafValues fill_leafs(const Graph& graph, const Case& c, verify::SplitMix64& rng);

}  // namespace bk::conformance
