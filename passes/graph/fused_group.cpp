// The derived parts of a fused group: anchor, pattern, inputs and outputs (passes/graph/fused_group.h).
#include "passes/graph/fused_group.h"

#include <algorithm>
#include <unordered_set>

namespace tessel::graph {

FusedGroup make_group(const Graph& g, std::vector<NodeId> nodes) {
  FusedGroup group;
  group.nodes = std::move(nodes);
  std::unordered_set<NodeId> members(group.nodes.begin(), group.nodes.end());
  std::unordered_set<ValueId> produced;
  for (NodeId n : group.nodes) {
    const Node& node = g.node(n);
    OpPattern p = graph_op(node.op).pattern();
    if (p == OpPattern::ComplexOutFusable || p == OpPattern::Opaque) group.anchor = n;
    group.pattern = std::max(group.pattern, p);
    for (ValueId v : node.inputs) {
      bool outside = !produced.count(v) && std::find(group.inputs.begin(), group.inputs.end(), v) == group.inputs.end();
      if (outside) group.inputs.push_back(v);
    }
    for (ValueId v : node.outputs) {
      produced.insert(v);
      std::vector<Use> users = g.users(v);
      bool escapes = g.is_output(v) || std::any_of(users.begin(), users.end(), [&](const Use& u) {
                       return !members.count(u.node);
                     });
      if (escapes) group.outputs.push_back(v);
    }
  }
  return group;
}

}  // namespace tessel::graph
