// Converters of ONNX's reductions and softmaxes: ReduceMean/Sum/Max/Min (axes an attribute, or
// for ReduceSum an input since opset 13) and Softmax/LogSoftmax (before opset 13 over the input
// flattened to 2-D at `axis`, since over the single `axis`).
#include <numeric>

#include "frontends/onnx/import_context.h"

namespace tessel::frontend {

namespace {

using graph::Attributes;
using graph::Ints;

Converter reduction(const char* op) {
  return [op](ImportContext& ctx, const OnnxNode& node) {
    ValueId x = ctx.input(0);
    bool axes_input = std::string(op) == "reduce_sum" && ctx.opset() >= 13;
    Ints axes =
        axes_input ? (node.has_input(1) ? ctx.static_ints(1, "ReduceSum's axes") : Ints{}) : node.attr_ints("axes", {});
    if (axes.empty() && node.attr_int("noop_with_empty_axes", 0)) {
      ctx.define_output(0, x);
      return;
    }
    if (ctx.type(x).dtype != DataType::float32() && std::string(op) == "reduce_mean")
      ctx.unsupported("element type ", ctx.type(x).dtype.str(), " is not supported (only FLOAT)");
    Attributes attrs{{"keepdims", node.attr_int("keepdims", 1)}};
    if (!axes.empty()) attrs.set("axes", axes);
    ctx.define_output(0, ctx.emit(op, {x}, attrs));
  };
}

Converter softmax(const char* op) {
  return [op](ImportContext& ctx, const OnnxNode& node) {
    ValueId x = ctx.input(0);
    if (ctx.type(x).dtype != DataType::float32())
      ctx.unsupported("element type ", ctx.type(x).dtype.str(), " is not supported (only FLOAT)");
    std::vector<int64_t> shape = ctx.type(x).shape;
    int64_t rank = static_cast<int64_t>(shape.size());
    if (ctx.opset() >= 13) {
      ctx.define_output(0, ctx.emit(op, {x}, {{"axis", node.attr_int("axis", -1)}}));
      return;
    }
    int64_t axis = node.attr_int("axis", 1);
    if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
      user_error("axis ", axis, " is out of range for rank ", rank);
    if (axis < 0) axis += rank;
    auto product = [&](int64_t begin, int64_t end) {
      return std::accumulate(shape.begin() + begin, shape.begin() + end, int64_t{1}, std::multiplies<>());
    };
    ValueId flat = ctx.reshape(x, {product(0, axis), product(axis, rank)});
    ctx.define_output(0, ctx.reshape(ctx.emit(op, {flat}, {{"axis", int64_t{1}}}), shape));
  };
}

const ConverterRegistration registration{
    {"ReduceMean", reduction("reduce_mean")}, {"ReduceSum", reduction("reduce_sum")},
    {"ReduceMax", reduction("reduce_max")},   {"ReduceMin", reduction("reduce_min")},
    {"Softmax", softmax("softmax")},          {"LogSoftmax", softmax("log_softmax")},
};

}  // namespace

}  // namespace tessel::frontend
