// Graph pass "fold_constants": an operator node whose inputs are all constants is computed once,
// at compile time, by the tensor-expression interpreter on the operator's own expression, and
// becomes a constant (transposed or reshaped weights, shape arithmetic, constant subgraphs of
// exported models). The interpreter is slow, so results above `max_elements` stay computed at run
// time; graph outputs stay operators so that a module always computes its outputs.
#include "ir/te_interpreter.h"
#include "passes/graph/graph_pass.h"
#include "support/registry.h"

namespace tessel::graph {

namespace {

class FoldConstants : public GraphPass {
 public:
  explicit FoldConstants(int64_t max_elements) : max_elements_(max_elements) {}

  std::string run(OptimizedGraph& opt) const override {
    Graph& g = opt.graph;
    int folded = 0;
    for (NodeId n : g.topological_order()) {
      Node node = g.node(n);  // a copy: adding constants moves the graph's node storage
      if (!foldable(g, node)) continue;
      std::vector<TensorType> types;
      for (ValueId v : node.inputs) types.push_back(g.value(v).type);
      OpExpression e = op_expression(node.op, types, node.attrs);
      std::vector<std::pair<Tensor, NDArray>> values;
      for (size_t i = 0; i < node.inputs.size(); ++i) values.emplace_back(e.inputs[i], *g.constant_value(node.inputs[i]));
      for (size_t i = 0; i < node.outputs.size(); ++i) {
        const Value& out = g.value(node.outputs[i]);
        NDArray result = evaluate(e.outputs[i], values);
        ValueId c = g.add_constant(g.unique_value_name(out.name + ".folded"), result, out.type.layout);
        g.replace_all_uses(node.outputs[i], c);
      }
      g.remove_node(n);
      ++folded;
    }
    if (folded) opt.graph_changed();
    return "folded " + std::to_string(folded) + " operators on constants";
  }

 private:
  bool foldable(const Graph& g, const Node& node) const {
    if (!node.is_operator() || node.inputs.empty()) return false;
    for (ValueId v : node.inputs)
      if (!g.constant_value(v)) return false;
    for (ValueId v : node.outputs)
      if (g.is_output(v) || g.value(v).type.numel() > max_elements_) return false;
    return true;
  }
  int64_t max_elements_;
};

const std::vector<ParamSpec> kParams = {
    {"max_elements", ParamType::Int, 1 << 20, "largest result (in elements) computed at compile time",
     Allowed::at_least(0)},
};

}  // namespace

TESSEL_REGISTER_PLUGIN(GraphPass, fold_constants, "operators on constants computed at compile time", kParams,
                       [](const PluginParams& p) { return std::make_unique<FoldConstants>(p.get_int("max_elements")); });

}  // namespace tessel::graph
