// A fused group: operator nodes of a graph that the code generator turns into one kernel, as the
// fusion pass (passes/graph/fuse_ops.cpp) chose them by the TVM paper's op patterns.
#pragma once
#include <vector>

#include "ir/graph/graph.h"
#include "ir/graph/op.h"

namespace tessel::graph {

struct FusedGroup {
  std::vector<NodeId> nodes;  // producers before consumers
  NodeId anchor = -1;         // its complex-out-fusable or opaque node, if it has one
  OpPattern pattern = OpPattern::Injective;  // the most demanding pattern of its nodes
  std::vector<ValueId> inputs;   // values read from outside the group (constants included), in first-use order
  std::vector<ValueId> outputs;  // values used outside the group or graph outputs
};

// Completes a group given its nodes (in topological order): anchor, pattern, inputs, outputs.
FusedGroup make_group(const Graph& g, std::vector<NodeId> nodes);

}  // namespace tessel::graph
