// What the ONNX operator converters work with (internal to the frontend): an ONNX node with typed
// attribute access, and the import context holding the graph under construction, the map from
// ONNX value names to graph values, and helpers to emit operators and constants and to read the
// inputs an operator needs statically (Reshape's shape, Slice's bounds).
#pragma once
#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontends/onnx/onnx_importer.h"
#include "ir/graph/graph.h"

namespace tessel::frontend {

using graph::ValueId;

class OnnxNode {
 public:
  OnnxNode(const ::onnx::NodeProto& proto, std::string name) : proto_(proto), name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  const std::string& op_type() const { return proto_.op_type(); }

  // Inputs and outputs by position; an absent optional one has the empty name.
  size_t num_inputs() const { return proto_.input_size(); }
  size_t num_outputs() const { return proto_.output_size(); }
  bool has_input(size_t i) const { return i < num_inputs() && !proto_.input(i).empty(); }
  bool has_output(size_t i) const { return i < num_outputs() && !proto_.output(i).empty(); }
  const std::string& input(size_t i) const { return proto_.input(i); }
  const std::string& output(size_t i) const { return proto_.output(i); }

  // Attributes; a present attribute of another type is a UserError naming it.
  bool has_attr(const std::string& name) const { return find(name) != nullptr; }
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  float attr_float(const std::string& name, float fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name, const std::vector<int64_t>& fallback) const;
  std::vector<float> attr_floats(const std::string& name) const;
  std::vector<std::string> attr_strings(const std::string& name) const;
  const ::onnx::TensorProto* attr_tensor(const std::string& name) const;

 private:
  const ::onnx::AttributeProto* find(const std::string& name) const;
  const ::onnx::AttributeProto& typed(const std::string& name, int type) const;
  const ::onnx::NodeProto& proto_;
  std::string name_;
};

class ImportContext {
 public:
  // `reserved` are the ONNX value names of the whole model: generated names avoid them.
  ImportContext(graph::Graph& graph, int opset, std::set<std::string> reserved)
      : graph_(graph), opset_(opset), reserved_(std::move(reserved)) {}

  graph::Graph& graph() { return graph_; }
  int opset() const { return opset_; }

  // The node being converted: names the nodes emitted for it.
  void begin_node(const OnnxNode* node) {
    current_ = node;
    made_for_current_.clear();
  }

  // ---- values ----
  // The graph value of input i of the current node; UserError if it is absent or undefined.
  ValueId input(size_t i) const;
  // The same, or nothing when the optional input is absent.
  std::optional<ValueId> optional_input(size_t i) const;
  const graph::TensorType& type(ValueId v) const { return graph_.value(v).type; }
  // The value of input i when it is a constant; UnsupportedModel saying `what` must be static
  // otherwise.
  NDArray static_input(size_t i, const char* what) const;
  // A static integer input as a list.
  std::vector<int64_t> static_ints(size_t i, const char* what) const;
  // A static scalar float input (one element).
  float static_float(size_t i, const char* what) const;
  // Whether ONNX name `name` has a value (a graph input, initializer or earlier node output).
  bool defined(const std::string& name) const { return values_.count(name) != 0; }
  ValueId lookup(const std::string& name) const;
  // Binds an ONNX value name to a graph value. A value made for the current node takes the ONNX
  // name, so graph outputs and printed graphs keep the model's names.
  void define(const std::string& onnx_name, ValueId value);
  // Binds output i of the current node (if the model uses it).
  void define_output(size_t i, ValueId value);

  // ---- emitting ----
  // An operator node for the current node; integer-valued nodes whose inputs are all constant
  // (shape arithmetic) are evaluated at once and become constants.
  ValueId emit(const std::string& op, const std::vector<ValueId>& inputs, graph::Attributes attrs = {});
  std::vector<ValueId> emit_multi(const std::string& op, const std::vector<ValueId>& inputs,
                                  graph::Attributes attrs = {});
  ValueId constant(NDArray value, const std::string& hint);
  ValueId reshape(ValueId v, const std::vector<int64_t>& shape);

  // ---- errors about the current node ----
  template <typename... Parts>
  [[noreturn]] void unsupported(const Parts&... parts) const {
    throw UnsupportedModel(detail::concat(parts...));
  }

  // A name for a generated value or node, used by nothing in the model or the graph.
  std::string fresh_name(const std::string& base) const;

 private:
  std::vector<ValueId> fold_if_static(const std::vector<ValueId>& outputs);
  const OnnxNode& node() const;

  graph::Graph& graph_;
  int opset_;
  std::set<std::string> reserved_;
  std::map<std::string, ValueId> values_;
  std::set<ValueId> made_for_current_;
  const OnnxNode* current_ = nullptr;
};

// An ONNX operator's converter: reads the current node's inputs and attributes from the
// context, emits graph operators, and defines the node's outputs.
using Converter = std::function<void(ImportContext&, const OnnxNode&)>;

// The converter of every supported ONNX operator type.
const std::map<std::string, Converter>& converters();

// Registers converters from a converters_*.cpp file at static initialization.
struct ConverterRegistration {
  ConverterRegistration(std::initializer_list<std::pair<const char*, Converter>> entries);
};

}  // namespace tessel::frontend
