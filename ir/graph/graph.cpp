// The dataflow graph: building, queries and rewrites (ir/graph/graph.h).
#include "ir/graph/graph.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "ir/graph/op.h"
#include "ir/te_interpreter.h"
#include "support/error.h"

namespace tessel::graph {

namespace {

bool ok_name(const std::string& name) { return !name.empty(); }

constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

}  // namespace

// ---- building ----------------------------------------------------------------------------------

NodeId Graph::new_node(Node node) {
  NodeId id = static_cast<NodeId>(nodes_.size());
  if (node.name.empty()) node.name = unique_node_name(node.op);
  if (node_names_.count(node.name)) user_error("the graph already has a node named '", node.name, "'");
  node_names_[node.name] = id;
  nodes_.push_back(std::move(node));
  boost::add_vertex(topology_);
  return id;
}

void Graph::check_new_value(const std::string& name, const TensorType& type) const {
  if (!ok_name(name)) user_error("a graph value needs a name");
  if (value_names_.count(name)) user_error("the value name '", name, "' is defined twice");
  if (!type.layout.empty() && layout_rank(type.layout) != type.ndim())
    user_error("value '", name, "': layout '", type.layout, "' does not describe a ", type.ndim(), "-D tensor");
  int64_t elements = 1;
  for (int64_t d : type.shape) {
    if (d < 0 || (d > 0 && elements > kMaxElements / d))
      user_error("value '", name, "' of type ", type.str(), " has more than 2^31 - 1 elements (or a negative extent); ",
                 "generated kernels index tensors below that size");
    elements *= d;
  }
}

ValueId Graph::new_value(const std::string& name, TensorType type, NodeId producer, int index) {
  check_new_value(name, type);
  ValueId id = static_cast<ValueId>(values_.size());
  values_.push_back(Value{name, std::move(type), producer, index});
  value_names_[name] = id;
  return id;
}

ValueId Graph::add_source(const std::string& op, const std::string& name, TensorType type) {
  check_new_value(name, type);
  Node node;
  node.name = unique_node_name(op + ":" + name);
  node.op = op;
  NodeId n = new_node(std::move(node));
  ValueId v = new_value(name, std::move(type), n, 0);
  nodes_[n].outputs.push_back(v);
  return v;
}

ValueId Graph::add_input(const std::string& name, TensorType type) {
  ValueId v = add_source("input", name, std::move(type));
  inputs_.push_back(v);
  return v;
}

ValueId Graph::add_constant(const std::string& name, NDArray value, const std::string& layout) {
  if (!value.defined()) user_error("constant '", name, "' has no value");
  ValueId v = add_source("constant", name, TensorType{value.shape(), to_data_type(value.dtype()), layout});
  nodes_[values_[v].producer].constant = std::move(value);
  return v;
}

std::vector<ValueId> Graph::add_node(const std::string& op, const std::vector<ValueId>& inputs, Attributes attrs,
                                     const std::string& name, const std::vector<std::string>& output_names) {
  if (op == "input" || op == "constant")
    user_error("add_node: '", op, "' nodes are made by add_input and add_constant");
  std::vector<TensorType> input_types;
  for (ValueId v : inputs) {
    if (node(value(v).producer).removed) user_error("add_node: input '", value(v).name, "' belongs to a removed node");
    input_types.push_back(value(v).type);
  }
  std::string node_name = name.empty() ? unique_node_name(op) : name;
  std::vector<TensorType> types;
  try {
    types = infer_output_types(op, input_types, attrs);
  } catch (const UserError& e) {
    user_error("node '", node_name, "' (", op, "): ", e.what());
  }
  if (!output_names.empty() && output_names.size() != types.size())
    user_error("node '", node_name, "' (", op, ") has ", types.size(), " outputs but ", output_names.size(),
               " output names were given");
  std::vector<std::string> value_names;
  for (size_t i = 0; i < types.size(); ++i) {
    value_names.push_back(!output_names.empty() ? output_names[i]
                          : types.size() == 1   ? unique_value_name(node_name)
                                                : unique_value_name(node_name + ":" + std::to_string(i)));
    check_new_value(value_names[i], types[i]);
    if (std::count(value_names.begin(), value_names.end(), value_names[i]) > 1)
      user_error("node '", node_name, "' names two outputs '", value_names[i], "'");
  }
  if (node_names_.count(node_name)) user_error("the graph already has a node named '", node_name, "'");
  Node added;
  added.name = node_name;
  added.op = op;
  added.attrs = std::move(attrs);
  added.inputs = inputs;
  NodeId n = new_node(std::move(added));
  for (size_t slot = 0; slot < inputs.size(); ++slot) add_use(inputs[slot], n, static_cast<int>(slot));
  for (size_t i = 0; i < types.size(); ++i)
    nodes_[n].outputs.push_back(new_value(value_names[i], std::move(types[i]), n, static_cast<int>(i)));
  return nodes_[n].outputs;
}

ValueId Graph::add_op(const std::string& op, const std::vector<ValueId>& inputs, Attributes attrs,
                      const std::string& name, const std::string& output_name) {
  std::vector<std::string> names;
  if (!output_name.empty()) names.push_back(output_name);
  std::vector<ValueId> out = add_node(op, inputs, std::move(attrs), name, names);
  TESSEL_CHECK(out.size() == 1, "add_op: operator '", op, "' has ", out.size(), " outputs; use add_node");
  return out[0];
}

void Graph::add_output(ValueId v) {
  value(v);  // checks the id
  outputs_.push_back(v);
}

// ---- reading -----------------------------------------------------------------------------------

const Node& Graph::node(NodeId id) const {
  TESSEL_CHECK(id >= 0 && id < static_cast<NodeId>(nodes_.size()), "no node ", id);
  return nodes_[id];
}

Node& Graph::mutable_node(NodeId id) {
  TESSEL_CHECK(id >= 0 && id < static_cast<NodeId>(nodes_.size()), "no node ", id);
  return nodes_[id];
}

const Value& Graph::value(ValueId id) const {
  TESSEL_CHECK(id >= 0 && id < static_cast<ValueId>(values_.size()), "no value ", id);
  return values_[id];
}

std::vector<NodeId> Graph::nodes() const {
  std::vector<NodeId> out;
  for (NodeId n = 0; n < static_cast<NodeId>(nodes_.size()); ++n)
    if (!nodes_[n].removed) out.push_back(n);
  return out;
}

// Kahn's algorithm, always taking the ready node added first: insertion order whenever that order
// is already topological, so printed graphs read as they were built.
std::vector<NodeId> Graph::topological_order() const {
  std::vector<int> pending(nodes_.size());
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  for (NodeId n = 0; n < static_cast<NodeId>(nodes_.size()); ++n)
    if ((pending[n] = static_cast<int>(boost::in_degree(n, topology_))) == 0) ready.push(n);
  std::vector<NodeId> out;
  while (!ready.empty()) {
    NodeId n = ready.top();
    ready.pop();
    if (!nodes_[n].removed) out.push_back(n);
    for (auto e : boost::make_iterator_range(boost::out_edges(n, topology_)))
      if (--pending[boost::target(e, topology_)] == 0) ready.push(static_cast<NodeId>(boost::target(e, topology_)));
  }
  for (NodeId n = 0; n < static_cast<NodeId>(nodes_.size()); ++n)
    if (pending[n] > 0) user_error("the graph has a cycle through node '", nodes_[n].name, "' (", nodes_[n].op, ")");
  return out;
}

std::vector<Use> Graph::users(ValueId v) const {
  std::vector<Use> out;
  for (auto e : boost::make_iterator_range(boost::out_edges(value(v).producer, topology_)))
    if (topology_[e].value == v)
      out.push_back(Use{static_cast<NodeId>(boost::target(e, topology_)), topology_[e].slot});
  std::sort(out.begin(), out.end(),
            [](const Use& a, const Use& b) { return a.node != b.node ? a.node < b.node : a.slot < b.slot; });
  return out;
}

bool Graph::is_output(ValueId v) const { return std::find(outputs_.begin(), outputs_.end(), v) != outputs_.end(); }

const NDArray* Graph::constant_value(ValueId v) const {
  const Node& producer = node(value(v).producer);
  return producer.is_constant() ? &producer.constant : nullptr;
}

std::optional<ValueId> Graph::find_value(const std::string& name) const {
  auto it = value_names_.find(name);
  if (it == value_names_.end()) return std::nullopt;
  return it->second;
}

std::string Graph::unique_value_name(const std::string& base) const {
  if (!value_names_.count(base)) return base;
  for (int i = 1;; ++i)
    if (std::string name = base + "_" + std::to_string(i); !value_names_.count(name)) return name;
}

std::string Graph::unique_node_name(const std::string& base) const {
  if (!node_names_.count(base)) return base;
  for (int i = 1;; ++i)
    if (std::string name = base + "_" + std::to_string(i); !node_names_.count(name)) return name;
}

// ---- rewriting ---------------------------------------------------------------------------------

void Graph::add_use(ValueId v, NodeId consumer, int slot) {
  boost::add_edge(value(v).producer, consumer, UseEdge{v, slot}, topology_);
}

void Graph::remove_use(ValueId v, NodeId consumer, int slot) {
  for (auto e : boost::make_iterator_range(boost::out_edges(value(v).producer, topology_))) {
    if (static_cast<NodeId>(boost::target(e, topology_)) == consumer && topology_[e].value == v &&
        topology_[e].slot == slot) {
      boost::remove_edge(e, topology_);
      return;
    }
  }
  TESSEL_CHECK(false, "node ", consumer, " does not read value ", v, " as input ", slot);
}

void Graph::set_attr(NodeId n, const std::string& name, AttrValue value) {
  Node& changed = mutable_node(n);
  Attributes attrs = changed.attrs;
  attrs.set(name, std::move(value));
  std::vector<TensorType> input_types;
  for (ValueId v : changed.inputs) input_types.push_back(this->value(v).type);
  std::vector<TensorType> types;
  try {
    types = infer_output_types(changed.op, input_types, attrs);
  } catch (const UserError& e) {
    user_error("node '", changed.name, "' (", changed.op, "): ", e.what());
  }
  for (size_t i = 0; i < changed.outputs.size(); ++i)
    if (i >= types.size() || !(types[i] == this->value(changed.outputs[i]).type))
      user_error("node '", changed.name, "' (", changed.op, "): attribute '", name, "' would change the type of output ",
                 i, "; set only attributes that keep the types");
  changed.attrs = std::move(attrs);
}

void Graph::set_input(NodeId n, int slot, ValueId v) {
  Node& consumer = mutable_node(n);
  TESSEL_CHECK(slot >= 0 && slot < static_cast<int>(consumer.inputs.size()), "node '", consumer.name, "' has no input ",
               slot);
  ValueId old = consumer.inputs[slot];
  if (node(value(v).producer).removed) user_error("set_input: '", value(v).name, "' belongs to a removed node");
  if (!(value(old).type == value(v).type))
    user_error("node '", consumer.name, "' input ", slot, " is ", value(old).type.str(), "; it cannot read '",
               value(v).name, "' of type ", value(v).type.str());
  remove_use(old, n, slot);
  consumer.inputs[slot] = v;
  add_use(v, n, slot);
}

void Graph::replace_all_uses(ValueId from, ValueId to) {
  if (from == to) return;
  if (!(value(from).type == value(to).type))
    user_error("cannot replace '", value(from).name, "' (", value(from).type.str(), ") by '", value(to).name, "' (",
               value(to).type.str(), "): the types differ");
  for (const Use& use : users(from)) set_input(use.node, use.slot, to);
  std::replace(outputs_.begin(), outputs_.end(), from, to);
}

void Graph::rename_value(ValueId v, const std::string& name) {
  Value& renamed = values_.at(v);
  if (renamed.name == name) return;
  if (!ok_name(name) || value_names_.count(name))
    user_error("cannot rename '", renamed.name, "': the name '", name, "' is taken");
  value_names_.erase(renamed.name);
  value_names_[name] = v;
  renamed.name = name;
}

void Graph::remove_node(NodeId n) {
  Node& gone = mutable_node(n);
  TESSEL_CHECK(!gone.removed, "node '", gone.name, "' was already removed");
  for (ValueId v : gone.outputs) {
    if (!users(v).empty() || is_output(v))
      user_error("cannot remove node '", gone.name, "': its output '", value(v).name, "' is still used");
  }
  for (size_t slot = 0; slot < gone.inputs.size(); ++slot) remove_use(gone.inputs[slot], n, static_cast<int>(slot));
  for (ValueId v : gone.outputs) value_names_.erase(values_[v].name);
  if (gone.is_input()) std::erase(inputs_, gone.outputs[0]);
  node_names_.erase(gone.name);
  gone.removed = true;
  gone.constant = NDArray();
}

}  // namespace tessel::graph
