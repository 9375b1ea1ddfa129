// Graph pass "dce": removes operator and constant nodes none of whose outputs is used by another
// node or is a graph output (what other passes leave behind, and model parts that compute nothing
// the outputs need). Graph inputs stay: they are the model's interface even when unused.
#include "passes/graph/graph_pass.h"
#include "support/registry.h"

namespace tessel::graph {

namespace {

class EliminateDead : public GraphPass {
 public:
  std::string run(OptimizedGraph& opt) const override {
    Graph& g = opt.graph;
    std::vector<NodeId> order = g.topological_order();
    int removed = 0;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {  // consumers first, so chains go at once
      const Node& node = g.node(*it);
      if (node.is_input()) continue;
      bool used = false;
      for (ValueId v : node.outputs) used = used || g.is_output(v) || !g.users(v).empty();
      if (used) continue;
      g.remove_node(*it);
      ++removed;
    }
    if (removed) opt.graph_changed();
    return "removed " + std::to_string(removed) + " unused nodes";
  }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(GraphPass, dce, "dead-code elimination: nodes whose outputs nothing uses", {},
                       [](const PluginParams&) { return std::make_unique<EliminateDead>(); });

}  // namespace tessel::graph
