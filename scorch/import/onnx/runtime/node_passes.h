#pragma once
// Load-time passes over a node list that need no values: common subexpressions and dead nodes. The interpreter runs
// them after folding (runtime.cpp), so the compiled path (scorch/graph) sees their result too.
#include <cstddef>
#include <vector>

#include "scorch/import/onnx/onnx_model.h"

namespace scorch::onnx::detail {

/// Drops each node that computes what an earlier node computes (the same op, domain, inputs and attributes; no
/// subgraph; not a random op or Dropout) and makes its outputs' readers read the earlier node's outputs; an output
/// of g's that it produced is kept by an Identity of the earlier node's. Returns how many nodes were merged.
size_t merge_common_subexpressions(std::vector<Node>& nodes, const Graph& g);

/// Drops the nodes none of whose outputs a later kept node or g's outputs read (a chain of them too). Returns how
/// many were dropped.
size_t remove_dead_nodes(std::vector<Node>& nodes, const Graph& g);

}  // namespace scorch::onnx::detail
