// Converters of ONNX's element-wise operators: activations, arithmetic with broadcasting, Clip,
// BatchNormalization (inference), Cast, Identity and Dropout (inference: the identity).
#include <limits>

#include "frontends/onnx/import_context.h"
#include "frontends/onnx/onnx_tensor.h"

namespace tessel::frontend {

namespace {

using graph::Attributes;

void require_float(ImportContext& ctx, ValueId v, const char* what) {
  if (ctx.type(v).dtype != DataType::float32())
    ctx.unsupported(what, " of element type ", ctx.type(v).dtype.str(), " is not supported (only FLOAT)");
}

// An ONNX operator that is one graph operator of its first input, float only.
Converter unary(const char* op, std::function<Attributes(const OnnxNode&)> attrs = nullptr) {
  return [op, attrs](ImportContext& ctx, const OnnxNode& node) {
    ValueId x = ctx.input(0);
    require_float(ctx, x, "the input");
    ctx.define_output(0, ctx.emit(op, {x}, attrs ? attrs(node) : Attributes{}));
  };
}

// Arithmetic on float32 or on integers (shape computations).
Converter binary(const char* op) {
  return [op](ImportContext& ctx, const OnnxNode&) {
    ctx.define_output(0, ctx.emit(op, {ctx.input(0), ctx.input(1)}));
  };
}

// Clip: min and max are attributes before opset 11, optional static inputs since.
void convert_clip(ImportContext& ctx, const OnnxNode& node) {
  ValueId x = ctx.input(0);
  require_float(ctx, x, "the input");
  Attributes attrs;
  if (ctx.opset() < 11) {
    attrs.set("min", double(node.attr_float("min", -std::numeric_limits<float>::max())));
    attrs.set("max", double(node.attr_float("max", std::numeric_limits<float>::max())));
  } else {
    if (node.has_input(1)) attrs.set("min", double(ctx.static_float(1, "Clip's min")));
    if (node.has_input(2)) attrs.set("max", double(ctx.static_float(2, "Clip's max")));
  }
  ctx.define_output(0, ctx.emit("clip", {x}, attrs));
}

void convert_batch_norm(ImportContext& ctx, const OnnxNode& node) {
  if (node.attr_int("training_mode", 0) != 0)
    ctx.unsupported("training mode (training_mode=1) is not supported; export the model in eval mode");
  if (ctx.opset() < 9 && node.attr_int("spatial", 1) == 0)
    ctx.unsupported("spatial=0 (per-element statistics) is not supported");
  for (size_t i = 1; i < node.num_outputs(); ++i)
    if (node.has_output(i)) ctx.unsupported("the running statistics outputs (training) are not supported");
  ValueId x = ctx.input(0);
  require_float(ctx, x, "the input");
  std::vector<ValueId> inputs{x};
  for (size_t i = 1; i < 5; ++i) inputs.push_back(ctx.input(i));
  ctx.define_output(0, ctx.emit("batch_norm", inputs, {{"epsilon", double(node.attr_float("epsilon", 1e-5f))}}));
}

void convert_cast(ImportContext& ctx, const OnnxNode& node) {
  if (!node.has_attr("to")) user_error("the attribute 'to' is missing");
  int64_t code = node.attr_int("to", 0);
  // Narrowed unchecked, 2^32 + 1 would pass for FLOAT.
  if (code < 0 || code > std::numeric_limits<int>::max())
    user_error("the target type of Cast (", code, ") is no ONNX element type");
  DataType to = to_tessel_type(static_cast<int>(code), "the target type of Cast");
  ValueId x = ctx.input(0);
  ctx.define_output(0, ctx.type(x).dtype == to ? x : ctx.emit("cast", {x}, {{"to", to.str()}}));
}

void convert_identity(ImportContext& ctx, const OnnxNode&) { ctx.define_output(0, ctx.input(0)); }

// Inference: the identity. Training mode and the mask output are not supported.
void convert_dropout(ImportContext& ctx, const OnnxNode& node) {
  if (node.has_output(1)) ctx.unsupported("the mask output is not supported (inference only)");
  if (ctx.opset() >= 12 && node.has_input(2) && ctx.static_ints(2, "Dropout's training_mode")[0] != 0)
    ctx.unsupported("training mode is not supported (inference only)");
  ctx.define_output(0, ctx.input(0));
}

Attributes alpha_beta(const OnnxNode& node, float alpha, float beta) {
  return {{"alpha", double(node.attr_float("alpha", alpha))}, {"beta", double(node.attr_float("beta", beta))}};
}

const ConverterRegistration registration{
    {"Relu", unary("relu")},
    {"Sigmoid", unary("sigmoid")},
    {"Tanh", unary("tanh")},
    {"Exp", unary("exp")},
    {"Log", unary("log")},
    {"Sqrt", unary("sqrt")},
    {"Abs", unary("abs")},
    {"Neg", unary("neg")},
    {"LeakyRelu", unary("leaky_relu",
                        [](const OnnxNode& n) {
                          return Attributes{{"alpha", double(n.attr_float("alpha", 0.01f))}};
                        })},
    {"HardSigmoid", unary("hard_sigmoid", [](const OnnxNode& n) { return alpha_beta(n, 0.2f, 0.5f); })},
    {"HardSwish", unary("hard_swish")},
    {"Clip", convert_clip},
    {"Add", binary("add")},
    {"Sub", binary("sub")},
    {"Mul", binary("mul")},
    {"Div", binary("div")},
    {"BatchNormalization", convert_batch_norm},
    {"Cast", convert_cast},
    {"Identity", convert_identity},
    {"Dropout", convert_dropout},
};

}  // namespace

}  // namespace tessel::frontend
