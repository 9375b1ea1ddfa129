// The converters' view of an ONNX node and of the graph under construction
// (frontends/onnx/import_context.h).
#include "frontends/onnx/import_context.h"

#include "frontends/onnx/onnx_tensor.h"
#include "ir/graph/op.h"
#include "ir/te_interpreter.h"

namespace tessel::frontend {

// ---- OnnxNode ----------------------------------------------------------------------------------

const ::onnx::AttributeProto* OnnxNode::find(const std::string& name) const {
  for (const auto& a : proto_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

const ::onnx::AttributeProto& OnnxNode::typed(const std::string& name, int type) const {
  const ::onnx::AttributeProto* a = find(name);
  TESSEL_CHECK(a != nullptr, "attribute ", name, " looked up without checking it exists");
  // Old exporters leave `type` unset; then the field that holds a value decides.
  if (a->type() != type && a->type() != ::onnx::AttributeProto_AttributeType_UNDEFINED)
    user_error("attribute '", name, "' is of type ",
               ::onnx::AttributeProto_AttributeType_Name(static_cast<::onnx::AttributeProto_AttributeType>(a->type())),
               " but must be ",
               ::onnx::AttributeProto_AttributeType_Name(static_cast<::onnx::AttributeProto_AttributeType>(type)));
  return *a;
}

int64_t OnnxNode::attr_int(const std::string& name, int64_t fallback) const {
  return has_attr(name) ? typed(name, ::onnx::AttributeProto_AttributeType_INT).i() : fallback;
}

float OnnxNode::attr_float(const std::string& name, float fallback) const {
  return has_attr(name) ? typed(name, ::onnx::AttributeProto_AttributeType_FLOAT).f() : fallback;
}

std::string OnnxNode::attr_string(const std::string& name, const std::string& fallback) const {
  return has_attr(name) ? typed(name, ::onnx::AttributeProto_AttributeType_STRING).s() : fallback;
}

std::vector<int64_t> OnnxNode::attr_ints(const std::string& name, const std::vector<int64_t>& fallback) const {
  if (!has_attr(name)) return fallback;
  const auto& a = typed(name, ::onnx::AttributeProto_AttributeType_INTS);
  return {a.ints().begin(), a.ints().end()};
}

std::vector<float> OnnxNode::attr_floats(const std::string& name) const {
  if (!has_attr(name)) return {};
  const auto& a = typed(name, ::onnx::AttributeProto_AttributeType_FLOATS);
  return {a.floats().begin(), a.floats().end()};
}

std::vector<std::string> OnnxNode::attr_strings(const std::string& name) const {
  if (!has_attr(name)) return {};
  const auto& a = typed(name, ::onnx::AttributeProto_AttributeType_STRINGS);
  return {a.strings().begin(), a.strings().end()};
}

const ::onnx::TensorProto* OnnxNode::attr_tensor(const std::string& name) const {
  return has_attr(name) ? &typed(name, ::onnx::AttributeProto_AttributeType_TENSOR).t() : nullptr;
}

// ---- values ------------------------------------------------------------------------------------

const OnnxNode& ImportContext::node() const {
  TESSEL_CHECK(current_ != nullptr, "no ONNX node is being converted");
  return *current_;
}

ValueId ImportContext::lookup(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end())
    user_error("it reads '", name, "', which no graph input, initializer or earlier node defines ",
               "(a missing initializer, or nodes out of order)");
  return it->second;
}

ValueId ImportContext::input(size_t i) const {
  if (!node().has_input(i)) user_error("input ", i, " is required but absent");
  return lookup(node().input(i));
}

std::optional<ValueId> ImportContext::optional_input(size_t i) const {
  if (!node().has_input(i)) return std::nullopt;
  return lookup(node().input(i));
}

NDArray ImportContext::static_input(size_t i, const char* what) const {
  ValueId v = input(i);
  const NDArray* value = graph_.constant_value(v);
  if (value) return *value;
  if (graph_.node(graph_.value(v).producer).is_input())
    throw NeedsConstantInput(
        detail::concat(what, " ('", node().input(i), "') must be known when the model is imported, but ",
                       "it is a graph input; give its value (ImportOptions::constant_inputs)"),
        graph_.value(v).name);
  unsupported(what, " ('", node().input(i), "') must be known when the model is imported; it is computed at run time");
}

std::vector<int64_t> ImportContext::static_ints(size_t i, const char* what) const {
  NDArray value = static_input(i, what);
  if (!to_data_type(value.dtype()).is_int()) user_error(what, " must be integers; it is ", value.dtype().str());
  std::vector<int64_t> out;
  for (int64_t k = 0; k < value.numel(); ++k) out.push_back(value.get_int(k));  // exactly: INT64_MAX stays
  return out;
}

float ImportContext::static_float(size_t i, const char* what) const {
  NDArray value = static_input(i, what);
  if (value.numel() != 1) user_error(what, " must hold one value; it has ", value.numel());
  return static_cast<float>(value.get_double(0));
}

void ImportContext::define(const std::string& onnx_name, ValueId v) {
  if (values_.count(onnx_name)) user_error("the value '", onnx_name, "' is defined twice");
  if (made_for_current_.count(v) && graph_.value(v).name != onnx_name) {
    graph_.rename_value(v, onnx_name);
    made_for_current_.erase(v);  // a second ONNX name for it is an alias
  }
  values_[onnx_name] = v;
}

void ImportContext::define_output(size_t i, ValueId v) {
  if (node().has_output(i)) define(node().output(i), v);
}

// ---- emitting ----------------------------------------------------------------------------------

namespace {
constexpr const char* kZeroSize = "zero-size tensors (an extent of 0) are not supported";
}  // namespace

std::string ImportContext::fresh_name(const std::string& base) const {
  auto taken = [&](const std::string& n) { return reserved_.count(n) || graph_.find_value(n).has_value(); };
  if (!taken(base)) return base;
  for (int i = 1;; ++i)
    if (std::string n = base + "_" + std::to_string(i); !taken(n)) return n;
}

std::vector<ValueId> ImportContext::emit_multi(const std::string& op, const std::vector<ValueId>& inputs,
                                               graph::Attributes attrs) {
  std::vector<graph::TensorType> types;
  for (ValueId v : inputs) {
    types.push_back(type(v));
    if (types.back().numel() == 0) unsupported(kZeroSize);
  }
  size_t outputs = 0;
  try {
    outputs = graph::infer_output_types(op, types, attrs).size();  // the operator's own message on refusal
  } catch (const UserError& e) {
    // Tensor expressions have positive extents (ir/tensor.h), so an empty result cannot be built.
    if (std::string(e.what()).find("has a dimension of size 0") != std::string::npos) unsupported(kZeroSize);
    throw;
  }
  std::string name = fresh_name(node().name() + "/" + op);
  reserved_.insert(name);  // the node's name, even when its outputs are named name:i
  std::vector<std::string> names;
  for (size_t i = 0; i < outputs; ++i) {
    std::string candidate = outputs == 1 ? name : fresh_name(name + ":" + std::to_string(i));
    reserved_.insert(candidate);  // also keeps a later output from taking it
    names.push_back(candidate);
  }
  std::vector<ValueId> out = graph_.add_node(op, inputs, std::move(attrs), name, names);
  out = fold_if_static(out);
  made_for_current_.insert(out.begin(), out.end());
  return out;
}

ValueId ImportContext::emit(const std::string& op, const std::vector<ValueId>& inputs, graph::Attributes attrs) {
  std::vector<ValueId> out = emit_multi(op, inputs, std::move(attrs));
  TESSEL_CHECK(out.size() == 1, "operator ", op, " has ", out.size(), " outputs; use emit_multi");
  return out[0];
}

ValueId ImportContext::constant(NDArray value, const std::string& hint) {
  std::string name = fresh_name(current_ ? current_->name() + "/" + hint : hint);
  reserved_.insert(name);
  ValueId v = graph_.add_constant(name, std::move(value));
  made_for_current_.insert(v);
  return v;
}

ValueId ImportContext::reshape(ValueId v, const std::vector<int64_t>& shape) {
  if (type(v).shape == shape) return v;
  return emit("reshape", {v}, {{"shape", graph::Ints(shape)}});
}

// Shape arithmetic (integer values computed from constants) is evaluated here, with the reference
// interpreter, so the operators that need static arguments get them.
std::vector<ValueId> ImportContext::fold_if_static(const std::vector<ValueId>& outputs) {
  constexpr int64_t kMaxFolded = 1 << 16;
  const graph::Node& n = graph_.node(graph_.value(outputs[0]).producer);
  for (ValueId v : n.inputs)
    if (!graph_.constant_value(v)) return outputs;
  for (ValueId v : outputs)
    if (!type(v).dtype.is_int() || type(v).numel() > kMaxFolded) return outputs;
  std::vector<graph::TensorType> types;
  for (ValueId v : n.inputs) types.push_back(type(v));
  graph::OpExpression e = graph::op_expression(n.op, types, n.attrs);
  TensorValues values;
  for (size_t i = 0; i < n.inputs.size(); ++i) values[e.inputs[i].get()] = graph_.constant_value(n.inputs[i]);
  std::vector<NDArray> results = evaluate(e.outputs, values);
  std::vector<std::string> names;
  for (ValueId v : outputs) names.push_back(graph_.value(v).name);
  graph_.remove_node(graph_.value(outputs[0]).producer);
  std::vector<ValueId> folded;
  for (size_t i = 0; i < results.size(); ++i) folded.push_back(graph_.add_constant(names[i], results[i]));
  return folded;
}

// ---- the converter table -----------------------------------------------------------------------

namespace {
std::map<std::string, Converter>& table() {
  static std::map<std::string, Converter> converters;
  return converters;
}
}  // namespace

const std::map<std::string, Converter>& converters() { return table(); }

ConverterRegistration::ConverterRegistration(std::initializer_list<std::pair<const char*, Converter>> entries) {
  for (const auto& [name, converter] : entries) {
    TESSEL_CHECK(!table().count(name), "two converters for the ONNX operator ", name);
    table()[name] = converter;
  }
}

}  // namespace tessel::frontend
