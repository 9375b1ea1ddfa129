// Lookup of graph operators in the plugin registry (ir/graph/op.h).
#include "ir/graph/op.h"

#include <map>
#include <mutex>

#include "ir/graph/tensor_type.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::graph {

const char* op_pattern_name(OpPattern pattern) {
  switch (pattern) {
    case OpPattern::Injective:
      return "injective";
    case OpPattern::Reduction:
      return "reduction";
    case OpPattern::ComplexOutFusable:
      return "complex-out-fusable";
    case OpPattern::Opaque:
      return "opaque";
  }
  return "?";
}

std::vector<std::string> GraphOp::output_layouts(const std::vector<std::string>& input_layouts,
                                                 const std::vector<int>& output_ranks, const Attributes&) const {
  std::vector<std::string> out;
  for (int rank : output_ranks) {
    bool keeps = !input_layouts.empty() && layout_rank(input_layouts[0]) == rank;
    out.push_back(keeps ? input_layouts[0] : "");
  }
  return out;
}

const GraphOp& graph_op(const std::string& op) {
  // Operators take no parameters, so one instance of each serves every node.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<GraphOp>> instances;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = instances.find(op);
  if (it == instances.end()) it = instances.emplace(op, Registry<GraphOp>::instance().create(op)).first;
  return *it->second;
}

bool has_graph_op(const std::string& op) {
  for (const std::string& name : Registry<GraphOp>::instance().names())
    if (name == op) return true;
  return false;
}

OpExpression op_expression(const std::string& op, const std::vector<TensorType>& inputs, const Attributes& attrs) {
  OpExpression e;
  for (size_t i = 0; i < inputs.size(); ++i)
    e.inputs.push_back(placeholder(inputs[i].shape, inputs[i].dtype, "x" + std::to_string(i)));
  e.outputs = graph_op(op).compute(e.inputs, attrs);
  TESSEL_CHECK(!e.outputs.empty(), "graph operator '", op, "' computed no output");
  return e;
}

std::vector<TensorType> infer_output_types(const std::string& op, const std::vector<TensorType>& inputs,
                                           const Attributes& attrs) {
  OpExpression e = op_expression(op, inputs, attrs);
  std::vector<std::string> input_layouts;
  for (const TensorType& t : inputs) input_layouts.push_back(t.layout);
  std::vector<int> ranks;
  for (const Tensor& t : e.outputs) ranks.push_back(t.ndim());
  std::vector<std::string> layouts = graph_op(op).output_layouts(input_layouts, ranks, attrs);
  TESSEL_CHECK(layouts.size() == e.outputs.size(), "graph operator '", op, "' gave ", layouts.size(), " layouts for ",
               e.outputs.size(), " outputs");
  std::vector<TensorType> out;
  for (size_t i = 0; i < e.outputs.size(); ++i) out.push_back({e.outputs[i].shape(), e.outputs[i].dtype(), layouts[i]});
  return out;
}

}  // namespace tessel::graph
