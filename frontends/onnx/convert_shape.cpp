// Converters of ONNX's shape and data-movement operators: Flatten, Reshape, Squeeze and Unsqueeze
// (all reshapes), Expand, Transpose, Concat, Split, Slice, Pad, Gather, Shape and Constant. Arguments that
// ONNX passes as inputs since some opset (Reshape's shape, Slice's bounds, Pad's pads, the axes of
// Squeeze/Unsqueeze, Split's sizes) must be constants; shape arithmetic feeding them is folded
// during import (ImportContext::emit).
#include <numeric>

#include "frontends/onnx/import_context.h"
#include "frontends/onnx/onnx_tensor.h"

namespace tessel::frontend {

namespace {

using graph::Attributes;
using graph::Ints;

int64_t product(const std::vector<int64_t>& v, size_t begin, size_t end) {
  return std::accumulate(v.begin() + begin, v.begin() + end, int64_t{1}, std::multiplies<>());
}

int64_t axis_in(int64_t axis, int64_t rank, const char* what) {
  if (axis < -rank || axis >= rank) user_error(what, " ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

void convert_flatten(ImportContext& ctx, const OnnxNode& node) {
  ValueId x = ctx.input(0);
  const auto& s = ctx.type(x).shape;
  int64_t rank = static_cast<int64_t>(s.size());
  int64_t axis = node.attr_int("axis", 1);
  if (axis < -rank || axis > rank) user_error("axis ", axis, " is out of range for rank ", rank);
  if (axis < 0) axis += rank;
  ctx.define_output(0, ctx.emit("reshape", {x}, {{"shape", Ints{product(s, 0, axis), product(s, axis, s.size())}}}));
}

// ONNX Reshape: 0 copies the input's dimension (unless allowzero), -1 takes what is left.
void convert_reshape(ImportContext& ctx, const OnnxNode& node) {
  ValueId x = ctx.input(0);
  const auto& in = ctx.type(x).shape;
  std::vector<int64_t> shape = ctx.static_ints(1, "Reshape's shape");
  bool allow_zero = node.attr_int("allowzero", 0) != 0;
  int inferred = -1;
  int64_t known = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0 && !allow_zero) {
      if (d >= in.size())
        user_error("shape ", shape_str(shape), " copies dimension ", d, " that the ", in.size(), "-D input lacks");
      shape[d] = in[d];
    }
    if (shape[d] == -1) {
      if (inferred >= 0) user_error("shape ", shape_str(shape), " has more than one -1");
      inferred = static_cast<int>(d);
      continue;
    }
    if (shape[d] < 0) user_error("shape ", shape_str(shape), " has the negative extent ", shape[d]);
    known *= shape[d];
  }
  int64_t total = product(in, 0, in.size());
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      user_error("cannot reshape ", shape_str(in), " to ", shape_str(shape), ": the -1 extent is not a whole number");
    shape[inferred] = total / known;
  }
  ctx.define_output(0, ctx.emit("reshape", {x}, {{"shape", Ints(shape)}}));
}

// The axes of Squeeze/Unsqueeze: an attribute before opset 13, an optional input since.
std::vector<int64_t> axes_of(ImportContext& ctx, const OnnxNode& node, const char* what) {
  if (ctx.opset() >= 13) return node.has_input(1) ? ctx.static_ints(1, what) : std::vector<int64_t>{};
  return node.attr_ints("axes", {});
}

void convert_squeeze(ImportContext& ctx, const OnnxNode& node) {
  ValueId x = ctx.input(0);
  const auto& in = ctx.type(x).shape;
  std::vector<int64_t> axes = axes_of(ctx, node, "Squeeze's axes");
  std::vector<bool> drop(in.size(), false);
  for (int64_t a : axes) {
    int64_t d = axis_in(a, static_cast<int64_t>(in.size()), "axis");
    if (in[d] != 1) user_error("cannot squeeze axis ", a, " of extent ", in[d]);
    drop[d] = true;
  }
  std::vector<int64_t> shape;
  for (size_t d = 0; d < in.size(); ++d)
    if (!(axes.empty() ? in[d] == 1 : drop[d])) shape.push_back(in[d]);
  ctx.define_output(0, ctx.emit("reshape", {x}, {{"shape", Ints(shape)}}));
}

void convert_unsqueeze(ImportContext& ctx, const OnnxNode& node) {
  ValueId x = ctx.input(0);
  const auto& in = ctx.type(x).shape;
  std::vector<int64_t> axes = axes_of(ctx, node, "Unsqueeze's axes");
  int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  std::vector<bool> inserted(rank, false);
  for (int64_t a : axes) {
    int64_t d = axis_in(a, rank, "axis");
    if (inserted[d]) user_error("axis ", a, " is given twice");
    inserted[d] = true;
  }
  std::vector<int64_t> shape;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) shape.push_back(inserted[d] ? 1 : in[next++]);
  ctx.define_output(0, ctx.emit("reshape", {x}, {{"shape", Ints(shape)}}));
}

void convert_transpose(ImportContext& ctx, const OnnxNode& node) {
  ValueId x = ctx.input(0);
  Attributes attrs;
  if (node.has_attr("perm")) attrs.set("perm", node.attr_ints("perm", {}));
  ctx.define_output(0, ctx.emit("transpose", {x}, attrs));
}

void convert_concat(ImportContext& ctx, const OnnxNode& node) {
  if (!node.has_attr("axis")) user_error("the attribute 'axis' is missing");
  std::vector<ValueId> inputs;
  for (size_t i = 0; i < node.num_inputs(); ++i) inputs.push_back(ctx.input(i));
  ctx.define_output(0, ctx.emit("concat", inputs, {{"axis", node.attr_int("axis", 0)}}));
}

void convert_split(ImportContext& ctx, const OnnxNode& node) {
  ValueId x = ctx.input(0);
  int64_t rank = ctx.type(x).ndim();
  int64_t axis = axis_in(node.attr_int("axis", 0), rank, "axis");
  std::vector<int64_t> sizes = ctx.opset() >= 13 ? (node.has_input(1) ? ctx.static_ints(1, "Split's sizes") : Ints{})
                                                 : node.attr_ints("split", {});
  int64_t parts = static_cast<int64_t>(node.num_outputs()), extent = ctx.type(x).shape[axis];
  if (sizes.empty()) {
    if (parts == 0 || extent % parts != 0)
      user_error("axis ", axis, " of extent ", extent, " does not split into ", parts, " equal parts");
    sizes.assign(parts, extent / parts);
  }
  if (static_cast<int64_t>(sizes.size()) != parts)
    user_error(sizes.size(), " split sizes are given for ", parts, " outputs");
  std::vector<ValueId> out = ctx.emit_multi("split", {x}, {{"axis", axis}, {"split", Ints(sizes)}});
  for (size_t i = 0; i < out.size(); ++i) ctx.define_output(i, out[i]);
}

// Slice: starts, ends, axes and steps are attributes before opset 10, inputs since.
void convert_slice(ImportContext& ctx, const OnnxNode& node) {
  ValueId x = ctx.input(0);
  Attributes attrs;
  if (ctx.opset() < 10) {
    attrs.set("starts", node.attr_ints("starts", {}));
    attrs.set("ends", node.attr_ints("ends", {}));
    if (node.has_attr("axes")) attrs.set("axes", node.attr_ints("axes", {}));
  } else {
    attrs.set("starts", ctx.static_ints(1, "Slice's starts"));
    attrs.set("ends", ctx.static_ints(2, "Slice's ends"));
    if (node.has_input(3)) attrs.set("axes", ctx.static_ints(3, "Slice's axes"));
    if (node.has_input(4)) attrs.set("steps", ctx.static_ints(4, "Slice's steps"));
  }
  ctx.define_output(0, ctx.emit("strided_slice", {x}, attrs));
}

// Pad: pads and the value are attributes before opset 11, inputs since.
void convert_pad(ImportContext& ctx, const OnnxNode& node) {
  ValueId x = ctx.input(0);
  std::string mode = node.attr_string("mode", "constant");
  std::vector<int64_t> pads;
  double value = 0;
  if (ctx.opset() < 11) {
    pads = node.attr_ints("pads", {});
    value = node.attr_float("value", 0.0f);
  } else {
    pads = ctx.static_ints(1, "Pad's pads");
    if (node.has_input(2)) value = ctx.static_input(2, "Pad's constant_value").get_double(0);
    if (node.has_input(3)) ctx.unsupported("the axes input (opset 18) is not supported");
  }
  for (int64_t p : pads)
    if (p < 0) ctx.unsupported("negative pads (cropping) are not supported");
  ctx.define_output(0, ctx.emit("pad", {x}, {{"pads", Ints(pads)}, {"mode", mode}, {"value", value}}));
}

void convert_expand(ImportContext& ctx, const OnnxNode&) {
  ValueId x = ctx.input(0);
  ctx.define_output(0, ctx.emit("broadcast_to", {x}, {{"shape", Ints(ctx.static_ints(1, "Expand's shape"))}}));
}

void convert_gather(ImportContext& ctx, const OnnxNode& node) {
  ctx.define_output(0, ctx.emit("take", {ctx.input(0), ctx.input(1)}, {{"axis", node.attr_int("axis", 0)}}));
}

// The static shape of the input, as a constant (start and end select a part, since opset 15).
void convert_shape(ImportContext& ctx, const OnnxNode& node) {
  const auto& shape = ctx.type(ctx.input(0)).shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  int64_t start = clamp(node.attr_int("start", 0)), end = clamp(node.attr_int("end", rank));
  std::vector<int64_t> part(shape.begin() + start, shape.begin() + std::max(start, end));
  ctx.define_output(0, ctx.constant(NDArray::from_vector<int64_t>({static_cast<int64_t>(part.size())}, part), "shape"));
}

void convert_constant(ImportContext& ctx, const OnnxNode& node) {
  NDArray value;
  if (const ::onnx::TensorProto* t = node.attr_tensor("value")) {
    value = to_ndarray(*t, "the constant's value");
  } else if (node.has_attr("value_float")) {
    value = NDArray::from_vector<float>({}, {node.attr_float("value_float", 0)});
  } else if (node.has_attr("value_floats")) {
    std::vector<float> v = node.attr_floats("value_floats");
    value = NDArray::from_vector<float>({static_cast<int64_t>(v.size())}, v);
  } else if (node.has_attr("value_int")) {
    value = NDArray::from_vector<int64_t>({}, {node.attr_int("value_int", 0)});
  } else if (node.has_attr("value_ints")) {
    std::vector<int64_t> v = node.attr_ints("value_ints", {});
    value = NDArray::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v);
  } else if (node.has_attr("sparse_value") || node.has_attr("value_string") || node.has_attr("value_strings")) {
    ctx.unsupported("sparse and string constants are not supported");
  } else {
    user_error("the constant has no value attribute");
  }
  ctx.define_output(0, ctx.constant(value, "value"));
}

const ConverterRegistration registration{
    {"Flatten", convert_flatten},     {"Reshape", convert_reshape},     {"Squeeze", convert_squeeze},
    {"Unsqueeze", convert_unsqueeze}, {"Transpose", convert_transpose}, {"Concat", convert_concat},
    {"Split", convert_split},         {"Slice", convert_slice},         {"Pad", convert_pad},
    {"Expand", convert_expand},       {"Gather", convert_gather},       {"Shape", convert_shape},
    {"Constant", convert_constant},
};

}  // namespace

}  // namespace tessel::frontend
