// A fused group: operator nodes of a graph that the code generator turns into one kernel, as the
// fusion pass (passes/graph/fuse_ops.cpp) chose them by the TVM paper's op patterns, or a fused
// block of several such groups (passes/graph/fuse_blocks.cpp).
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
  // A fused block (passes/graph/fuse_blocks.cpp): the outputs of the groups it merged, producers
  // first, each computed per row tile of the block's output instead of over the whole tensor; the
  // anchor is the block's last convolution. Empty for a group of one anchor.
  std::vector<ValueId> tile_values;
  // The weights of later groups that this group's kernel prefetches into the outer caches while
  // it computes (passes/graph/prefetch_weights.cpp); they are kernel arguments it does not read.
  std::vector<ValueId> prefetched;
};

// Completes a group given its nodes (in topological order): anchor, pattern, inputs, outputs.
FusedGroup make_group(const Graph& g, std::vector<NodeId> nodes);

}  // namespace tessel::graph
