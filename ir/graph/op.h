// Graph operators: what a node of the dataflow graph computes. Each operator is a plugin of kind
// "graph_op" (listed by `tessel plugins`, loadable out of tree like any plugin) that declares its
// op pattern and gives its outputs as tensor expressions of its inputs. The graph derives the
// output types of a node from that expression, the unfused executor compiles it, and fusion
// will inline injective producers into it, so what an operator computes is written once.
//
// The op pattern is the TVM paper's classification for fusion (section 3):
//   injective            one-to-one maps: element-wise and broadcast arithmetic, reshape,
//                        transpose, pad, concat, ... (any number fuse together)
//   reduction            inputs reduced to fewer dimensions (sum, mean)
//   complex-out-fusable  operators whose element-wise consumers fuse into their output (conv2d,
//                        dense, pooling)
//   opaque               operators that fuse with nothing (softmax)
//
//   // ops/graph/: an operator registers itself
//   class Relu : public GraphOp { ... };
//   TESSEL_REGISTER_PLUGIN(GraphOp, relu, "max(x, 0)", {}, ...);
//   // anywhere: what a node computes
//   std::vector<Tensor> out = graph_op("relu").compute({x}, {});
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/graph/attributes.h"
#include "ir/graph/tensor_type.h"
#include "ir/tensor.h"

namespace tessel::graph {

enum class OpPattern : uint8_t { Injective, Reduction, ComplexOutFusable, Opaque };
const char* op_pattern_name(OpPattern pattern);  // "injective", "reduction", "complex-out-fusable", "opaque"

class GraphOp {
 public:
  static constexpr const char* kPluginKind = "graph_op";
  virtual ~GraphOp() = default;

  virtual OpPattern pattern() const = 0;

  // The operator's outputs as tensor expressions reading `inputs` (placeholders, or the
  // expressions of producers being fused). Throws UserError for inputs or attributes the
  // operator does not accept, saying what is wrong.
  virtual std::vector<Tensor> compute(const std::vector<Tensor>& inputs, const Attributes& attrs) const = 0;

  // The layout of each output ("NCHW", "" for none), given the inputs' layouts and the output
  // ranks. By default an output keeps its first input's layout when the rank is unchanged.
  virtual std::vector<std::string> output_layouts(const std::vector<std::string>& input_layouts,
                                                  const std::vector<int>& output_ranks, const Attributes& attrs) const;
};

// The registered operator named `op`; UserError listing the operators if there is none.
const GraphOp& graph_op(const std::string& op);
// Whether an operator of that name is registered.
bool has_graph_op(const std::string& op);

// What an operator computes for inputs of these types: its outputs as tensor expressions over
// fresh placeholders (named x0, x1, ...), one per input.
struct OpExpression {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};
OpExpression op_expression(const std::string& op, const std::vector<TensorType>& inputs, const Attributes& attrs);

// The types of op's outputs for these inputs: shapes and element types of its expression, layouts
// from its output_layouts.
std::vector<TensorType> infer_output_types(const std::string& op, const std::vector<TensorType>& inputs,
                                           const Attributes& attrs);

}  // namespace tessel::graph
