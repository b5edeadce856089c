// SPDX-License-Identifier: MIT
#pragma once
// The graph handle's rules, shared by the builder (graph.cpp) and the scheduler (sched.cpp).

#include "bk/graph.h"
#include "capi/handles.h"

namespace bk::capi {

// The tensor behind a handle, which must come from graph g; `what` names the argument.
Tensor& owned_tensor(const bk_graph& g, bk_tensor& handle, const char* what);
// Error(invalid_argument) once the graph is built.
void check_open(const bk_graph& g);
// The graph built from its outputs (on first use); Error(invalid_argument) when it has none.
Graph& built_graph(bk_graph& g);

}  // namespace bk::capi
