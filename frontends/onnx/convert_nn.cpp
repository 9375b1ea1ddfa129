// Converters of ONNX's convolution, matrix and pooling operators: Conv (bias as bias_add),
// ConvTranspose, Gemm (transposes, alpha, beta and C as separate operators), MatMul (1-D operands
// reshaped), MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool. auto_pad is resolved to
// explicit pads here, from the static input shapes.
#include "frontends/onnx/import_context.h"

namespace tessel::frontend {

namespace {

using graph::Attributes;
using graph::Ints;

// The 2-D window of a convolution or pooling node: kernel, strides, dilations and explicit pads
// [top, left, bottom, right].
struct Window {
  Ints kernel, strides, dilations, pads;
};

Ints pair_attr(const OnnxNode& node, const char* name) {
  Ints v = node.attr_ints(name, {1, 1});
  if (v.size() != 2) user_error("attribute '", name, "' must have 2 values (a 2-D window); it has ", v.size());
  return v;
}

// The window of `node` over 4-D input `x` with kernel extent `kernel`, auto_pad resolved.
Window window_of(ImportContext& ctx, const OnnxNode& node, ValueId x, Ints kernel) {
  const graph::TensorType& t = ctx.type(x);
  if (t.ndim() != 4) ctx.unsupported("only 2-D windows over NCHW data are supported; the input is ", t.ndim(), "-D");
  if (t.dtype != DataType::float32()) ctx.unsupported("element type ", t.dtype.str(), " is not supported (only FLOAT)");
  Window w{std::move(kernel), pair_attr(node, "strides"), pair_attr(node, "dilations"),
           node.attr_ints("pads", {0, 0, 0, 0})};
  if (node.has_attr("kernel_shape") && node.attr_ints("kernel_shape", {}) != w.kernel)
    user_error("kernel_shape ", shape_str(node.attr_ints("kernel_shape", {})), " does not match the weight's ",
               shape_str(w.kernel));
  if (w.pads.size() != 4)
    user_error("attribute 'pads' must have 4 values (2-D begin and end pads); it has ", w.pads.size());
  for (int64_t s : w.strides)
    if (s <= 0) user_error("strides must be positive");
  std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    w.pads = {0, 0, 0, 0};
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (int d = 0; d < 2; ++d) {
      int64_t in = t.shape[2 + d], out = (in + w.strides[d] - 1) / w.strides[d];
      int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[d] + (w.kernel[d] - 1) * w.dilations[d] + 1 - in);
      int64_t small = total / 2;
      w.pads[d] = auto_pad == "SAME_UPPER" ? small : total - small;
      w.pads[2 + d] = total - w.pads[d];
    }
  } else if (auto_pad != "NOTSET") {
    user_error("auto_pad '", auto_pad, "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  }
  return w;
}

Attributes window_attrs(const Window& w) {
  return {{"strides", w.strides}, {"dilations", w.dilations}, {"pads", w.pads}};
}

Ints spatial(const graph::TensorType& weight) {
  if (weight.ndim() != 4) return {};
  return {weight.shape[2], weight.shape[3]};
}

void add_bias(ImportContext& ctx, ValueId& y) {
  if (auto bias = ctx.optional_input(2)) y = ctx.emit("bias_add", {y, *bias}, {{"axis", int64_t{1}}});
}

void convert_conv(ImportContext& ctx, const OnnxNode& node) {
  ValueId x = ctx.input(0), w = ctx.input(1);
  if (ctx.type(w).ndim() != 4)
    ctx.unsupported("only 2-D convolution is supported; the weight is ", ctx.type(w).ndim(), "-D");
  Attributes attrs = window_attrs(window_of(ctx, node, x, spatial(ctx.type(w))));
  attrs.set("groups", node.attr_int("group", 1));
  ValueId y = ctx.emit("conv2d", {x, w}, attrs);
  add_bias(ctx, y);
  ctx.define_output(0, y);
}

void convert_conv_transpose(ImportContext& ctx, const OnnxNode& node) {
  ValueId x = ctx.input(0), w = ctx.input(1);
  if (ctx.type(w).ndim() != 4) ctx.unsupported("only 2-D transposed convolution is supported");
  Ints kernel = spatial(ctx.type(w));
  std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  Window win = window_of(ctx, node, x, kernel);
  Ints extra = node.attr_ints("output_padding", {0, 0});
  if (extra.size() != 2) user_error("attribute 'output_padding' must have 2 values");
  // A requested output shape (or SAME padding: input × stride) fixes the pads instead.
  Ints out_shape = node.attr_ints("output_shape", {});
  if (out_shape.size() > 2) out_shape.erase(out_shape.begin(), out_shape.end() - 2);
  if (out_shape.empty() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER"))
    out_shape = {ctx.type(x).shape[2] * win.strides[0], ctx.type(x).shape[3] * win.strides[1]};
  if (auto_pad == "VALID") win.pads = {0, 0, 0, 0};
  if (!out_shape.empty()) {
    if (out_shape.size() != 2) user_error("attribute 'output_shape' must give the 2 spatial extents");
    for (int d = 0; d < 2; ++d) {
      int64_t total = win.strides[d] * (ctx.type(x).shape[2 + d] - 1) + extra[d] + (kernel[d] - 1) * win.dilations[d] +
                      1 - out_shape[d];
      if (total < 0) {  // a bigger output than the full result: the rest at the end, as output_padding
        extra[d] -= total;
        total = 0;
      }
      bool upper = auto_pad == "SAME_UPPER";
      win.pads[d] = upper ? total / 2 : total - total / 2;
      win.pads[2 + d] = total - win.pads[d];
    }
  }
  Attributes attrs = window_attrs(win);
  attrs.set("groups", node.attr_int("group", 1));
  attrs.set("output_padding", extra);
  ValueId y = ctx.emit("conv2d_transpose", {x, w}, attrs);
  add_bias(ctx, y);
  ctx.define_output(0, y);
}

ValueId scaled(ImportContext& ctx, ValueId v, float factor, const char* name) {
  if (factor == 1.0f) return v;
  return ctx.emit("mul", {v, ctx.constant(NDArray::from_vector<float>({}, {factor}), name)});
}

// Y = alpha · A' · B' + beta · C, with A' and B' optionally transposed.
void convert_gemm(ImportContext& ctx, const OnnxNode& node) {
  ValueId a = ctx.input(0), b = ctx.input(1);
  if (ctx.type(a).ndim() != 2 || ctx.type(b).ndim() != 2) user_error("A and B must be matrices");
  if (ctx.type(a).dtype != DataType::float32())
    ctx.unsupported("element type ", ctx.type(a).dtype.str(), " is not supported (only FLOAT)");
  if (node.attr_int("transA", 0)) a = ctx.emit("transpose", {a}, {{"perm", Ints{1, 0}}});
  ValueId y = node.attr_int("transB", 0) ? ctx.emit("dense", {a, b}) : ctx.emit("matmul", {a, b});
  y = scaled(ctx, y, node.attr_float("alpha", 1.0f), "alpha");
  if (auto c = ctx.optional_input(2)) {
    float beta = node.attr_float("beta", 1.0f);
    if (beta != 0.0f) y = ctx.emit("add", {y, scaled(ctx, *c, beta, "beta")});
  }
  ctx.define_output(0, y);
}

// numpy matmul: a 1-D left operand is a row, a 1-D right one a column, and that dimension is
// dropped from the result.
void convert_matmul(ImportContext& ctx, const OnnxNode&) {
  ValueId a = ctx.input(0), b = ctx.input(1);
  if (ctx.type(a).dtype != DataType::float32())
    ctx.unsupported("element type ", ctx.type(a).dtype.str(), " is not supported (only FLOAT)");
  std::vector<int64_t> sa = ctx.type(a).shape, sb = ctx.type(b).shape;
  if (sa.empty() || sb.empty()) user_error("MatMul operands must not be scalars");
  bool row = sa.size() == 1, column = sb.size() == 1;
  if (row) a = ctx.reshape(a, {1, sa[0]});
  if (column) b = ctx.reshape(b, {sb[0], 1});
  ValueId y = ctx.emit("matmul", {a, b});
  std::vector<int64_t> shape = ctx.type(y).shape;
  if (column) shape.erase(shape.end() - 1);
  if (row) shape.erase(shape.end() - (column ? 1 : 2));
  ctx.define_output(0, ctx.reshape(y, shape));
}

Converter pool(const char* op) {
  return [op](ImportContext& ctx, const OnnxNode& node) {
    if (node.has_output(1)) ctx.unsupported("the Indices output is not supported");
    ValueId x = ctx.input(0);
    if (!node.has_attr("kernel_shape")) user_error("the attribute 'kernel_shape' is missing");
    Ints kernel = node.attr_ints("kernel_shape", {});
    if (kernel.size() != 2)
      ctx.unsupported("only 2-D pooling is supported; kernel_shape has ", kernel.size(), " values");
    Attributes attrs = window_attrs(window_of(ctx, node, x, kernel));
    attrs.set("kernel_shape", kernel);
    attrs.set("ceil_mode", node.attr_int("ceil_mode", 0));
    if (std::string(op) == "avg_pool2d") attrs.set("count_include_pad", node.attr_int("count_include_pad", 0));
    ctx.define_output(0, ctx.emit(op, {x}, attrs));
  };
}

Converter global_pool(const char* op) {
  return [op](ImportContext& ctx, const OnnxNode&) {
    ValueId x = ctx.input(0);
    if (ctx.type(x).ndim() != 4) ctx.unsupported("only 2-D global pooling (4-D NCHW input) is supported");
    if (ctx.type(x).dtype != DataType::float32())
      ctx.unsupported("element type ", ctx.type(x).dtype.str(), " is not supported (only FLOAT)");
    ctx.define_output(0, ctx.emit(op, {x}));
  };
}

const ConverterRegistration registration{
    {"Conv", convert_conv},
    {"ConvTranspose", convert_conv_transpose},
    {"Gemm", convert_gemm},
    {"MatMul", convert_matmul},
    {"MaxPool", pool("max_pool2d")},
    {"AveragePool", pool("avg_pool2d")},
    {"GlobalAveragePool", global_pool("global_avg_pool2d")},
    {"GlobalMaxPool", global_pool("global_max_pool2d")},
};

}  // namespace

}  // namespace tessel::frontend
