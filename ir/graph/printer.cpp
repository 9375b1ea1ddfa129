// Graph text (ir/graph/printer.h).
#include "ir/graph/printer.h"

#include <sstream>

namespace tessel::graph {

namespace {

std::string value_list(const Graph& g, const std::vector<ValueId>& values) {
  std::string out;
  for (ValueId v : values) out += (out.empty() ? "%" : ", %") + g.value(v).name;
  return out;
}

}  // namespace

std::string to_string(const Graph& g) {
  std::ostringstream os;
  os << "graph(";
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const Value& v = g.value(g.inputs()[i]);
    os << (i ? ", %" : "%") << v.name << ": " << v.type.str();
  }
  os << ") {\n";
  for (NodeId n : g.topological_order()) {
    const Node& node = g.node(n);
    if (node.is_input()) continue;
    os << "  " << value_list(g, node.outputs) << " = ";
    if (node.is_constant()) {
      os << "constant " << g.value(node.outputs[0]).type.str() << "\n";
      continue;
    }
    os << node.op << "(" << value_list(g, node.inputs) << ")";
    if (std::string attrs = node.attrs.str(); !attrs.empty()) os << " " << attrs;
    os << "  // ";
    for (size_t i = 0; i < node.outputs.size(); ++i) os << (i ? ", " : "") << g.value(node.outputs[i]).type.str();
    os << "\n";
  }
  os << "  return " << value_list(g, g.outputs()) << "\n}\n";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Graph& graph) { return os << to_string(graph); }

}  // namespace tessel::graph
