// Graph invariants (ir/graph/verifier.h).
#include "ir/graph/verifier.h"

#include <map>
#include <set>

#include "ir/graph/op.h"
#include "ir/te_interpreter.h"
#include "support/error.h"

namespace tessel::graph {

namespace {

class Checker {
 public:
  explicit Checker(const Graph& g) : g_(g) {}

  std::vector<std::string> run() {
    check_order();
    std::set<std::string> node_names, value_names;
    for (NodeId n : g_.nodes()) {
      const Node& node = g_.node(n);
      if (!node_names.insert(node.name).second) problem("two nodes are named '", node.name, "'");
      for (ValueId v : node.outputs)
        if (!value_names.insert(g_.value(v).name).second) problem("two values are named '", g_.value(v).name, "'");
      check_node(n);
    }
    check_boundary();
    return problems_;
  }

 private:
  template <typename... Parts>
  void problem(const Parts&... parts) {
    problems_.push_back(detail::concat(parts...));
  }

  bool live_value(ValueId v) const {
    return v >= 0 && v < static_cast<ValueId>(g_.num_values()) && !g_.node(g_.value(v).producer).removed;
  }

  void check_order() {
    try {
      g_.topological_order();
    } catch (const UserError& e) {
      problem(e.what());
    }
  }

  void check_boundary() {
    if (g_.outputs().empty()) problem("the graph has no output");
    for (ValueId v : g_.outputs())
      if (!live_value(v)) problem("graph output ", v, " is not a value of the graph");
    for (ValueId v : g_.inputs())
      if (!live_value(v) || !g_.node(g_.value(v).producer).is_input())
        problem("graph input ", v, " is not produced by an input node");
  }

  void check_node(NodeId n) {
    const Node& node = g_.node(n);
    std::multiset<std::pair<ValueId, int>> edges;
    for (auto e : boost::make_iterator_range(boost::in_edges(n, g_.topology())))
      edges.insert({g_.topology()[e].value, g_.topology()[e].slot});
    std::multiset<std::pair<ValueId, int>> reads;
    for (size_t slot = 0; slot < node.inputs.size(); ++slot) {
      ValueId v = node.inputs[slot];
      if (!live_value(v)) problem("node '", node.name, "' input ", slot, " is not a live value");
      reads.insert({v, static_cast<int>(slot)});
    }
    if (edges != reads) problem("node '", node.name, "': its inputs and the topology's edges disagree");
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const Value& v = g_.value(node.outputs[i]);
      if (v.producer != n || v.output_index != static_cast<int>(i))
        problem("value '", v.name, "' does not point back to its producer '", node.name, "'");
      if (!v.type.layout.empty() && layout_rank(v.type.layout) != v.type.ndim())
        problem("value '", v.name, "': layout '", v.type.layout, "' does not fit its type ", v.type.str());
    }
    if (node.is_input()) {
      if (!node.inputs.empty() || node.outputs.size() != 1)
        problem("input node '", node.name, "' must read nothing and have one output");
    } else if (node.is_constant()) {
      check_constant(node);
    } else {
      check_operator(node);
    }
  }

  void check_constant(const Node& node) {
    if (!node.inputs.empty() || node.outputs.size() != 1) {
      problem("constant node '", node.name, "' must read nothing and have one output");
      return;
    }
    const TensorType& t = g_.value(node.outputs[0]).type;
    if (!node.constant.defined() || node.constant.shape() != t.shape || to_data_type(node.constant.dtype()) != t.dtype)
      problem("constant '", node.name, "' does not hold an array of type ", t.str());
  }

  void check_operator(const Node& node) {
    if (!has_graph_op(node.op)) {
      problem("node '", node.name, "' has the unknown operator '", node.op, "'");
      return;
    }
    std::vector<TensorType> inputs;
    for (ValueId v : node.inputs)
      if (live_value(v)) inputs.push_back(g_.value(v).type);
    if (inputs.size() != node.inputs.size()) return;
    try {
      std::vector<TensorType> expected = infer_output_types(node.op, inputs, node.attrs);
      if (expected.size() != node.outputs.size()) {
        problem("node '", node.name, "' (", node.op, ") has ", node.outputs.size(), " outputs but computes ",
                expected.size());
        return;
      }
      for (size_t i = 0; i < expected.size(); ++i) {
        const Value& v = g_.value(node.outputs[i]);
        if (!(v.type == expected[i]))
          problem("value '", v.name, "' is declared ", v.type.str(), " but node '", node.name, "' (", node.op,
                  ") computes ", expected[i].str());
      }
    } catch (const UserError& e) {
      problem("node '", node.name, "' (", node.op, "): ", e.what());
    }
  }

  const Graph& g_;
  std::vector<std::string> problems_;
};

}  // namespace

std::vector<std::string> find_problems(const Graph& graph) { return Checker(graph).run(); }

void verify(const Graph& graph) {
  std::vector<std::string> problems = find_problems(graph);
  if (problems.empty()) return;
  constexpr size_t kShown = 5;
  std::string text;
  for (size_t i = 0; i < problems.size() && i < kShown; ++i) text += (i ? "; " : "") + problems[i];
  if (problems.size() > kShown) text += detail::concat("; and ", problems.size() - kShown, " more");
  user_error("the graph is not well-formed: ", text);
}

}  // namespace tessel::graph
