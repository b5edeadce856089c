// SPDX-License-Identifier: MIT
#pragma once
// One device buffer holding a whole small graph, for checks that run a graph on a device and
// compare it with a reference (bkctl smoke, the conformance suite). Unlike the graph allocator
// there is no reuse: every leaf and every non-view node gets its own aligned place, views point
// into their sources, and the buffer is poisoned with 0xFF bytes (NaN in every float type) so an
// element the device never wrote cannot pass as a result.
//
// The caller keeps the graph alive as long as the buffer; errors are the buffer type's
// (Error(out_of_memory) and friends).

#include <memory>

#include "bk/buffer.h"
#include "bk/graph.h"

namespace bk {

std::unique_ptr<Buffer> place_graph_poisoned(BufferType& type, Graph& graph);

}  // namespace bk
