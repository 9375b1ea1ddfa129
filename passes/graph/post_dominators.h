// The post-dominator tree of a graph's operator nodes: node p post-dominates n when every path
// from n to the graph's end (its outputs, or a value nothing reads) passes through p. Fusion uses
// the immediate post-dominator of a node as the farthest point its group may grow to: everything
// between the two is read by nothing else.
//
//   PostDominators pd(g);
//   NodeId p = pd.immediate(n);  // kExit when n's values reach the end by more than one way
#pragma once
#include <unordered_map>

#include "ir/graph/graph.h"

namespace tessel::graph {

class PostDominators {
 public:
  static constexpr NodeId kExit = -2;  // the virtual node every graph output and unread value flows to

  explicit PostDominators(const Graph& g);
  // The nearest node post-dominating operator node `n` (kExit if none does).
  NodeId immediate(NodeId n) const { return parent_.at(n); }

 private:
  // The nearest common post-dominator of a and b (either may be kExit).
  NodeId common(NodeId a, NodeId b) const;
  std::unordered_map<NodeId, NodeId> parent_;
  std::unordered_map<NodeId, int> depth_;  // in the tree; kExit is the root, at 0
};

}  // namespace tessel::graph
