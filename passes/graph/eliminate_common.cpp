// Graph pass "cse": common subexpression elimination. Two operator nodes with the same operator,
// attributes and inputs compute the same values, so the later one's readers read the earlier
// one's outputs; two constants with the same type and bytes become one. Visiting producers first
// lets a merge expose the next one (identical chains collapse whole). Nodes producing graph
// outputs are kept, so each output stays a value of its own.
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "passes/graph/graph_pass.h"
#include "support/registry.h"

namespace tessel::graph {

namespace {

// What identifies a node's computation: operator and attributes with input ids, or a constant's
// type and a hash of its bytes (equal keys of constants are confirmed byte by byte).
std::string node_key(const Graph& g, const Node& node) {
  if (node.is_constant()) {
    const NDArray& a = node.constant;
    std::string_view bytes(static_cast<const char*>(a.data()), a.nbytes());
    return "constant " + g.value(node.outputs[0]).type.str() + " " + std::to_string(std::hash<std::string_view>()(bytes));
  }
  std::string key = node.op + node.attrs.str() + "(";
  for (ValueId v : node.inputs) key += std::to_string(v) + ",";
  return key + ")";
}

bool same_constant(const NDArray& a, const NDArray& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

class EliminateCommon : public GraphPass {
 public:
  std::string run(OptimizedGraph& opt) const override {
    Graph& g = opt.graph;
    std::unordered_map<std::string, NodeId> first;
    int merged = 0;
    for (NodeId n : g.topological_order()) {
      const Node& node = g.node(n);
      if (node.is_input()) continue;
      bool output = false;
      for (ValueId v : node.outputs) output = output || g.is_output(v);
      if (output) continue;
      auto [it, added] = first.emplace(node_key(g, node), n);
      if (added) continue;
      const Node& kept = g.node(it->second);
      if (node.is_constant() && !same_constant(node.constant, kept.constant)) continue;
      std::vector<ValueId> from = node.outputs, to = kept.outputs;
      for (size_t i = 0; i < from.size(); ++i) g.replace_all_uses(from[i], to[i]);
      ++merged;
    }
    if (merged) opt.graph_changed();
    return "merged " + std::to_string(merged) + " duplicate nodes";
  }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(GraphPass, cse, "common subexpression elimination: duplicate operators and constants merged",
                       {}, [](const PluginParams&) { return std::make_unique<EliminateCommon>(); });

}  // namespace tessel::graph
