// Reading an ONNX model into a graph (frontends/onnx/onnx_importer.h): parsing and validating the
// file, the model's inputs and initializers, every node through its converter, and the outputs.
#include "frontends/onnx/onnx_importer.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "frontends/onnx/import_context.h"
#include "frontends/onnx/onnx_tensor.h"
#include "ir/graph/verifier.h"

namespace tessel::frontend {

namespace {

constexpr int64_t kMaxIrVersion = 8;  // ONNX 1.12

bool default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

int default_opset(const ::onnx::ModelProto& model, const std::string& source) {
  for (const auto& entry : model.opset_import()) {
    if (!default_domain(entry.domain())) continue;
    int64_t v = entry.version();
    if (v < kMinOpset || v > kMaxOpset)
      throw UnsupportedModel(
          detail::concat(source, " uses ONNX opset ", v, ", which is not supported; Tessel imports opsets ", kMinOpset,
                         " to ", kMaxOpset, " (re-export it, e.g. torch.onnx.export(..., opset_version=13))"));
    return static_cast<int>(v);
  }
  user_error(source, " declares no opset for the default ONNX domain (opset_import); it is not a valid ONNX model");
}

// Every operator the converters lack, with the nodes using it, in one message.
void check_supported(const ::onnx::GraphProto& g, const std::string& source) {
  std::map<std::string, std::vector<std::string>> missing;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    std::string op = default_domain(n.domain()) ? n.op_type() : n.domain() + "." + n.op_type();
    if (!default_domain(n.domain()) || !converters().count(n.op_type()))
      missing[op].push_back(n.name().empty() ? "#" + std::to_string(i) : n.name());
  }
  if (missing.empty()) return;
  std::ostringstream msg;
  msg << source << " uses operators Tessel does not support: ";
  bool first = true;
  for (const auto& [op, nodes] : missing) {
    msg << (first ? "" : "; ") << op << " (node" << (nodes.size() > 1 ? "s " : " ");
    first = false;
    for (size_t k = 0; k < nodes.size() && k < 3; ++k) msg << (k ? ", '" : "'") << nodes[k] << "'";
    if (nodes.size() > 3) msg << " and " << nodes.size() - 3 << " more";
    msg << ")";
  }
  msg << "; see docs/graph.md for the supported operators";
  throw UnsupportedModel(msg.str());
}

// The static shape of a graph input, its dynamic dimensions fixed by the options.
std::vector<int64_t> input_shape(const ::onnx::ValueInfoProto& info, const ImportOptions& options) {
  const std::string& name = info.name();
  const auto& tensor = info.type().tensor_type();
  auto fixed = options.input_shapes.find(name);
  if (!tensor.has_shape()) {
    if (fixed != options.input_shapes.end()) return fixed->second;
    user_error("graph input '", name, "' has no declared shape; give it one (ImportOptions::input_shapes)");
  }
  const auto& dims = tensor.shape().dim();
  if (fixed != options.input_shapes.end() && fixed->second.size() != static_cast<size_t>(dims.size()))
    user_error("graph input '", name, "' is ", dims.size(), "-D but the shape given for it, ", shape_str(fixed->second),
               ", is ", fixed->second.size(), "-D");
  std::vector<int64_t> shape;
  for (int d = 0; d < dims.size(); ++d) {
    const auto& dim = dims[d];
    std::optional<int64_t> given;
    if (fixed != options.input_shapes.end()) given = fixed->second[d];
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0) user_error("graph input '", name, "' has the negative dimension ", dim.dim_value());
      if (given && *given != dim.dim_value())
        user_error("graph input '", name, "' has the static dimension ", d, " = ", dim.dim_value(),
                   " but the shape given for it says ", *given);
      shape.push_back(dim.dim_value());
    } else if (given) {
      shape.push_back(*given);
    } else if (auto p = options.dim_params.find(dim.dim_param());
               !dim.dim_param().empty() && p != options.dim_params.end()) {
      shape.push_back(p->second);
    } else {
      user_error("graph input '", name, "' has the dynamic dimension ", d,
                 dim.dim_param().empty() ? std::string() : " ('" + dim.dim_param() + "')",
                 "; fix its size (ImportOptions::dim_params or input_shapes)");
    }
    if (shape.back() < 0) user_error("graph input '", name, "': dimension ", d, " cannot be negative");
  }
  return shape;
}

// The names a node output feeds: a later node input or a graph output.
std::set<std::string> used_names(const ::onnx::GraphProto& g) {
  std::set<std::string> used;
  for (const auto& n : g.node())
    for (const auto& in : n.input()) used.insert(in);
  for (const auto& out : g.output()) used.insert(out.name());
  return used;
}

class Importer {
 public:
  Importer(const ::onnx::ModelProto& model, const std::string& source, const ImportOptions& options)
      : model_(model), g_(model.graph()), source_(source), options_(options) {}

  graph::Graph run() {
    int opset = default_opset(model_, source_);
    check_supported(g_, source_);
    std::set<std::string> reserved;
    for (const auto& in : g_.input()) reserved.insert(in.name());
    for (const auto& init : g_.initializer()) reserved.insert(init.name());
    for (const auto& n : g_.node()) reserved.insert(n.output().begin(), n.output().end());
    ImportContext ctx(graph_, opset, reserved);
    add_initializers(ctx);
    add_inputs(ctx);
    std::set<std::string> used = used_names(g_);
    for (int i = 0; i < g_.node_size(); ++i) convert_node(ctx, i, used);
    add_outputs(ctx);
    remove_unused_nodes();
    graph::verify(graph_);
    return std::move(graph_);
  }

 private:
  void add_initializers(ImportContext& ctx) {
    if (g_.sparse_initializer_size() > 0)
      throw UnsupportedModel(source_ + " has sparse initializers, which are not supported");
    for (const auto& init : g_.initializer()) {
      std::string what = "initializer '" + init.name() + "'";
      if (init.name().empty()) user_error(source_, ": an initializer has no name");
      if (ctx.defined(init.name())) user_error(source_, ": ", what, " is defined twice");
      ctx.define(init.name(), graph_.add_constant(init.name(), to_ndarray(init, what)));
    }
  }

  void add_inputs(ImportContext& ctx) {
    std::set<std::string> inputs;
    for (const auto& in : g_.input()) inputs.insert(in.name());
    for (const auto& [name, shape] : options_.input_shapes)
      if (!inputs.count(name)) user_error("a shape was given for '", name, "', which is not an input of ", source_);
    for (const auto& [name, value] : options_.constant_inputs)
      if (!inputs.count(name)) user_error("a value was given for '", name, "', which is not an input of ", source_);
    for (const auto& in : g_.input()) {
      if (ctx.defined(in.name())) continue;  // an initializer listed as an input (IR < 4): a constant
      if (!in.type().has_tensor_type())
        throw UnsupportedModel(
            detail::concat(source_, ": graph input '", in.name(), "' is not a tensor (a sequence, map or optional)"));
      std::string what = "graph input '" + in.name() + "'";
      DataType dtype = to_tessel_type(in.type().tensor_type().elem_type(), what);
      if (auto fixed = options_.constant_inputs.find(in.name()); fixed != options_.constant_inputs.end()) {
        ImportOptions with_shape;
        with_shape.input_shapes[in.name()] = fixed->second.shape();
        input_shape(in, with_shape);  // checks the value against the declared static dimensions
        fixed->second.check_matches(fixed->second.shape(), dtype, "the value given for " + what);
        ctx.define(in.name(), graph_.add_constant(in.name(), fixed->second));
        continue;
      }
      std::vector<int64_t> shape = input_shape(in, options_);
      ctx.define(in.name(), graph_.add_input(in.name(), {shape, dtype, shape.size() == 4 ? "NCHW" : ""}));
    }
  }

  void convert_node(ImportContext& ctx, int index, const std::set<std::string>& used) {
    const ::onnx::NodeProto& proto = g_.node(index);
    OnnxNode node(proto, proto.name().empty() ? proto.op_type() + "_" + std::to_string(index) : proto.name());
    std::string where = detail::concat(source_, ": node '", node.name(), "' (", node.op_type(), "): ");
    ctx.begin_node(&node);
    try {
      converters().at(node.op_type())(ctx, node);
      for (size_t i = 0; i < node.num_outputs(); ++i)
        if (node.has_output(i) && used.count(node.output(i)) && !ctx.defined(node.output(i)))
          ctx.unsupported("output ", i, " ('", node.output(i), "') is not supported");
    } catch (const NeedsConstantInput& e) {
      throw NeedsConstantInput(where + e.what(), e.input);
    } catch (const UnsupportedModel& e) {
      throw UnsupportedModel(where + e.what());
    } catch (const UserError& e) {
      throw UserError(where + e.what());
    }
    ctx.begin_node(nullptr);
  }

  void add_outputs(ImportContext& ctx) {
    if (g_.output_size() == 0) user_error(source_, " declares no graph output");
    for (const auto& out : g_.output()) {
      ValueId v = ctx.lookup(out.name());
      if (graph_.value(v).name != out.name() || graph_.is_output(v))  // an alias: give the output its own value
        v = graph_.add_node("identity", {v}, {}, ctx.fresh_name(out.name() + "/identity"), {out.name()})[0];
      check_declared_type(out, graph_.value(v).type);
      graph_.add_output(v);
    }
  }

  void check_declared_type(const ::onnx::ValueInfoProto& out, const graph::TensorType& computed) {
    if (!out.type().has_tensor_type()) return;
    const auto& t = out.type().tensor_type();
    bool agrees =
        t.elem_type() == 0 || to_tessel_type(t.elem_type(), "graph output '" + out.name() + "'") == computed.dtype;
    if (t.has_shape()) {
      agrees = agrees && t.shape().dim_size() == computed.ndim();
      for (int d = 0; agrees && d < t.shape().dim_size(); ++d)
        agrees = !t.shape().dim(d).has_dim_value() || t.shape().dim(d).dim_value() == computed.shape[d];
    }
    if (!agrees)
      user_error(source_, ": graph output '", out.name(), "' is declared with another type than the ", computed.str(),
                 " the model computes");
  }

  // What no output depends on: initializers read only during import (LSTM weights, shapes),
  // constants folded away, outputs of unrolled LSTMs the model does not read. Graph inputs stay.
  void remove_unused_nodes() {
    std::vector<graph::NodeId> order = graph_.topological_order();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const graph::Node& node = graph_.node(*it);
      bool used = node.is_input();
      for (ValueId v : node.outputs) used = used || !graph_.users(v).empty() || graph_.is_output(v);
      if (!used) graph_.remove_node(*it);
    }
  }

  const ::onnx::ModelProto& model_;
  const ::onnx::GraphProto& g_;
  std::string source_;
  const ImportOptions& options_;
  graph::Graph graph_;
};

}  // namespace

graph::Graph import_onnx_bytes(const void* data, size_t size, const std::string& source, const ImportOptions& options) {
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
    user_error(source,
               " is larger than 2 GiB, more than one protobuf message can hold; ONNX models that size keep "
               "their weights in external files, which is not supported");
  ::onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size)))
    user_error(source, " is not an ONNX model: it does not parse as one (a truncated file, or another format)");
  if (!model.has_graph() || model.ir_version() <= 0)
    user_error(source, " is not an ONNX model: it has no ", model.has_graph() ? "IR version" : "graph");
  if (model.ir_version() > kMaxIrVersion)
    user_error(source, " has ONNX IR version ", model.ir_version(), ", newer than the ", kMaxIrVersion,
               " this importer reads (libonnx 1.12); re-export it with an older ONNX");
  return Importer(model, source, options).run();
}

graph::Graph import_onnx(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) user_error("cannot read the ONNX model '", path, "': ", std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) user_error("cannot read the ONNX model '", path, "': a read error");
  std::string data = bytes.str();
  return import_onnx_bytes(data.data(), data.size(), "'" + path + "'", options);
}

std::vector<std::string> supported_onnx_ops() {
  std::vector<std::string> out;
  for (const auto& [name, converter] : converters()) out.push_back(name);
  return out;
}

}  // namespace tessel::frontend
