// The post-dominator tree (passes/graph/post_dominators.h), built in one sweep from consumers to
// producers: a node's immediate post-dominator is the nearest common ancestor, in the tree built
// so far, of all the nodes reading its outputs (kExit for a graph output or an unread value), as
// TVM's fusion pass computes it. A reverse topological order makes every reader known first.
#include "passes/graph/post_dominators.h"

#include <algorithm>
#include <optional>

namespace tessel::graph {

PostDominators::PostDominators(const Graph& g) {
  depth_[kExit] = 0;
  std::vector<NodeId> order = g.topological_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node& node = g.node(*it);
    if (!node.is_operator()) continue;
    std::optional<NodeId> dom;
    auto meet = [&](NodeId reader) { dom = dom ? common(*dom, reader) : reader; };
    for (ValueId v : node.outputs) {
      std::vector<Use> users = g.users(v);
      if (users.empty() || g.is_output(v)) meet(kExit);
      for (const Use& u : users) meet(u.node);
    }
    parent_[*it] = *dom;
    depth_[*it] = depth_.at(*dom) + 1;
  }
}

NodeId PostDominators::common(NodeId a, NodeId b) const {
  while (a != b) {
    if (depth_.at(a) < depth_.at(b)) std::swap(a, b);
    a = parent_.at(a);
  }
  return a;
}

}  // namespace tessel::graph
