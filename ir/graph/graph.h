// The dataflow graph of a model: nodes are operators with attributes, edges are the tensors
// (values) flowing between them, each with a static TensorType (shape, dtype, layout). What
// frontends build and graph passes rewrite.
//
// Every value has exactly one producer node. Graph inputs are nodes of op "input" and constants
// (weights) nodes of op "constant" holding their NDArray, so a pass treats every value alike
// ("are all inputs of this node produced by constants?"). The other ops are registered graph
// operators (ir/graph/op.h); add_node derives their output types from the operator itself.
//
// The topology is a Boost.Graph adjacency list (topology()): vertex i is node i, and each use of
// a value is an edge from its producer to its consumer carrying the value and the input slot,
// so Boost's algorithms (topological sort, dominator trees on the reversed graph, ...) run on it
// directly. Node and value ids stay valid as the graph is rewritten: a removed node stays behind
// as an isolated vertex marked `removed`, skipped by nodes() and topological_order().
//
//   Graph g;
//   ValueId x = g.add_input("x", {{1, 3, 32, 32}, DataType::float32(), "NCHW"});
//   ValueId w = g.add_constant("w", weights);
//   ValueId y = g.add_op("conv2d", {x, w}, {{"strides", Ints{1, 1}}, {"pads", Ints{1, 1, 1, 1}}});
//   g.add_output(g.add_op("relu", {y}));
//   for (NodeId n : g.topological_order()) ... g.node(n).op ... g.users(g.node(n).outputs[0]) ...
#pragma once
#include <boost/graph/adjacency_list.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph/attributes.h"
#include "ir/graph/tensor_type.h"
#include "runtime/ndarray.h"

namespace tessel::graph {

using NodeId = int32_t;
using ValueId = int32_t;

struct Value {
  std::string name;  // unique in the graph; graph inputs and outputs keep the model's names
  TensorType type;
  NodeId producer = -1;
  int output_index = 0;  // which output of the producer
};

// A node reading a value as its input number `slot`.
struct Use {
  NodeId node = -1;
  int slot = 0;
  bool operator==(const Use&) const = default;
};

struct Node {
  std::string name;  // unique in the graph
  std::string op;    // "input", "constant" or a registered graph operator
  Attributes attrs;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  NDArray constant;  // op "constant": the value
  bool removed = false;

  bool is_input() const { return op == "input"; }
  bool is_constant() const { return op == "constant"; }
  bool is_operator() const { return !is_input() && !is_constant(); }
};

// The edge of one use: which value, read as which input of the consumer.
struct UseEdge {
  ValueId value = -1;
  int slot = 0;
};

class Graph {
 public:
  using Topology = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, boost::no_property, UseEdge>;

  // ---- building ------------------------------------------------------------------------------
  // Every value has fewer than 2^31 elements (the index range of generated kernels); adding a
  // bigger one is a UserError naming it.
  // A graph input named `name`; inputs() lists them in the order added.
  ValueId add_input(const std::string& name, TensorType type);
  // A constant holding `value` (its shape and element type), with an optional layout.
  ValueId add_constant(const std::string& name, NDArray value, const std::string& layout = "");
  // An operator node; its output types come from the operator (infer_output_types). Names are
  // generated when not given ("relu_7"); a given name already in use is a UserError, as is an
  // operator that refuses its inputs or attributes (the message names the node).
  std::vector<ValueId> add_node(const std::string& op, const std::vector<ValueId>& inputs, Attributes attrs = {},
                                const std::string& name = "", const std::vector<std::string>& output_names = {});
  // add_node for an operator with one output; returns it.
  ValueId add_op(const std::string& op, const std::vector<ValueId>& inputs, Attributes attrs = {},
                 const std::string& name = "", const std::string& output_name = "");
  void add_output(ValueId value);

  // ---- reading -------------------------------------------------------------------------------
  const Node& node(NodeId id) const;
  const Value& value(ValueId id) const;
  // Live nodes in the order they were added.
  std::vector<NodeId> nodes() const;
  // Live nodes, every producer before its consumers; UserError naming a node on a cycle.
  std::vector<NodeId> topological_order() const;
  const std::vector<ValueId>& inputs() const { return inputs_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  // The nodes reading `value`, one entry per input slot that reads it.
  std::vector<Use> users(ValueId value) const;
  bool is_output(ValueId value) const;
  // The value of a constant, or nullptr when `value` is not produced by a constant node.
  const NDArray* constant_value(ValueId value) const;
  std::optional<ValueId> find_value(const std::string& name) const;
  const Topology& topology() const { return topology_; }
  size_t num_values() const { return values_.size(); }
  // A name not yet used by a value, made from `base` ("x", then "x_1", ...).
  std::string unique_value_name(const std::string& base) const;

  // ---- rewriting -----------------------------------------------------------------------------
  // Makes every reader of `from` (and the graph outputs) read `to` instead; their types must be
  // equal. `from` is left without users.
  void replace_all_uses(ValueId from, ValueId to);
  // Makes input `slot` of `node` read `value` (of the same type as before).
  void set_input(NodeId node, int slot, ValueId value);
  // Sets attribute `name` of `node` to `value`: a hint to how it is computed (conv2d_nchwc's
  // "channel_shares"), which must leave its output types as they are. UserError (naming the node)
  // if the operator refuses the attribute or it changes an output's type.
  void set_attr(NodeId node, const std::string& name, AttrValue value);
  // Gives a value another name, unused so far.
  void rename_value(ValueId value, const std::string& name);
  // Removes a node whose outputs have no users and are not graph outputs (inputs included).
  void remove_node(NodeId node);

 private:
  // A node of op "input" or "constant" with its one output.
  ValueId add_source(const std::string& op, const std::string& name, TensorType type);
  // UserError unless a value of that name and type can be added (all checks before any change).
  void check_new_value(const std::string& name, const TensorType& type) const;
  NodeId new_node(Node node);
  ValueId new_value(const std::string& name, TensorType type, NodeId producer, int index);
  void add_use(ValueId value, NodeId consumer, int slot);
  void remove_use(ValueId value, NodeId consumer, int slot);
  Node& mutable_node(NodeId id);
  std::string unique_node_name(const std::string& base) const;

  Topology topology_;
  std::vector<Node> nodes_;
  std::vector<Value> values_;
  std::unordered_map<std::string, ValueId> value_names_;
  std::unordered_map<std::string, NodeId> node_names_;
  std::vector<ValueId> inputs_;
  std::vector<ValueId> outputs_;
};

}  // namespace tessel::graph
