// Data-movement graph operators, all injective: identity (a copy), broadcast_to, reshape, transpose, concat,
// interleave (of a transposed convolution's phases), split, strided_slice, pad (constant, edge and reflect), take
// (gather along an axis) and layout_transform (image batches between NCHW and channel-blocked NCHW[x]c, what the
// layout pass inserts). Each output element reads one input element, so they fuse freely and the injective
// schedule (ops/injective_schedule.h) compiles them; take is tagged "gather", since its reads depend on data.
//
// Attributes: broadcast_to shape; reshape shape (every dimension given) and optional layout; transpose perm; concat
// axis; interleave strides [sh, sw]; split axis and sizes `split`; strided_slice starts, ends, axes, steps (ONNX
// Slice: negative values count from the end, out-of-range ones are clamped); pad pads [begin per dim..., end per
// dim...], mode ("constant", "edge", "reflect") and value; take axis; layout_transform src_layout and dst_layout
// ("NCHW" or "NCHW<block>c").
#include <algorithm>
#include <functional>
#include <numeric>

#include "ops/graph/graph_op_util.h"
#include "ops/layout_transform.h"
#include "ops/pad.h"
#include "runtime/ndarray.h"
#include "support/error.h"

namespace tessel::ops {

namespace {

// Row-major strides of a shape.
std::vector<int64_t> strides_of(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * shape[d + 1];
  return s;
}

int64_t count(const std::vector<int64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

std::vector<Tensor> reshape_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 1, 1, "reshape");
  const Tensor& x = in[0];
  const Ints& shape = attrs.ints("shape");
  for (int64_t d : shape)
    if (d < 0) user_error("reshape: target shape ", shape_str(shape), " must give every dimension (none negative)");
  if (count(shape) != count(x.shape()))
    user_error("reshape: cannot reshape ", shape_str(x.shape()), " (", count(x.shape()), " elements) to ",
               shape_str(shape), " (", count(shape), " elements)");
  std::vector<int64_t> out_strides = strides_of(shape), in_strides = strides_of(x.shape());
  return {compute(
      shape,
      [&](const std::vector<Var>& i) {
        Expr flat = Expr(0);
        for (size_t d = 0; d < i.size(); ++d) flat = flat + i[d] * Expr(out_strides[d]);
        std::vector<Expr> at;
        for (size_t d = 0; d < x.shape().size(); ++d)
          at.push_back(d == 0 ? flat / Expr(in_strides[0]) : flat / Expr(in_strides[d]) % Expr(x.shape()[d]));
        return x(at);
      },
      "reshape", "injective")};
}

std::vector<Tensor> identity_compute(const std::vector<Tensor>& in, const Attributes&) {
  check_input_count(in, 1, 1, "identity");
  const Tensor& x = in[0];
  return {compute(
      x.shape(), [&](const std::vector<Var>& i) { return x(as_exprs(i)); }, "identity", "injective")};
}

// The numpy broadcast of the input and `shape` (ONNX Expand: the result may be bigger than shape).
std::vector<Tensor> broadcast_to_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 1, 1, "broadcast_to");
  const Tensor& x = in[0];
  std::vector<int64_t> shape = broadcast_shapes(x.shape(), attrs.ints("shape"), "broadcast_to");
  return {compute(
      shape, [&](const std::vector<Var>& i) { return broadcast_read(x, i); }, "broadcast_to", "injective")};
}

std::vector<Tensor> transpose_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 1, 1, "transpose");
  const Tensor& x = in[0];
  Ints perm(x.ndim());
  std::iota(perm.rbegin(), perm.rend(), 0);
  perm = attrs.ints("perm", perm);
  Ints sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  Ints identity(x.ndim());
  std::iota(identity.begin(), identity.end(), 0);
  if (sorted != identity)
    user_error("transpose: perm ", shape_str(perm), " is not a permutation of the ", x.ndim(), " axes");
  std::vector<int64_t> shape;
  for (int64_t p : perm) shape.push_back(x.shape()[p]);
  return {compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> at(x.ndim());
        for (size_t d = 0; d < perm.size(); ++d) at[perm[d]] = i[d];
        return x(at);
      },
      "transpose", "injective")};
}

std::vector<Tensor> concat_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  if (in.empty()) user_error("concat takes at least one input");
  int rank = in[0].ndim();
  int axis = normalize_axis(attrs.get_int("axis"), rank, "concat");
  std::vector<int64_t> shape = in[0].shape();
  shape[axis] = 0;
  for (const Tensor& t : in) {
    bool fits = t.ndim() == rank && t.dtype() == in[0].dtype();
    for (int d = 0; fits && d < rank; ++d) fits = d == axis || t.shape()[d] == in[0].shape()[d];
    if (!fits)
      user_error("concat: inputs ", shape_str(in[0].shape()), " and ", shape_str(t.shape()), " differ outside axis ",
                 axis, " (or in element type)");
    shape[axis] += t.shape()[axis];
  }
  std::vector<int64_t> offsets{0};  // where each input starts along the axis
  for (const Tensor& t : in) offsets.push_back(offsets.back() + t.shape()[axis]);
  return {compute(
      shape,
      [&](const std::vector<Var>& i) {
        // A balanced tree of selects on the axis index (depth log2 of the inputs, not their number);
        // each read is clamped into its input, since both sides of a select are evaluated.
        std::function<Expr(size_t, size_t)> choose = [&](size_t lo, size_t hi) -> Expr {
          if (lo + 1 == hi) {
            std::vector<Expr> at = as_exprs(i);
            at[axis] = min(max(i[axis] - Expr(offsets[lo]), Expr(0)), Expr(in[lo].shape()[axis] - 1));
            return in[lo](at);
          }
          size_t mid = (lo + hi) / 2;
          return select(i[axis] >= Expr(offsets[mid]), choose(mid, hi), choose(lo, mid));
        };
        return choose(0, in.size());
      },
      "concat", "injective")};
}

// The sh·sw inputs [N, C, Q, Qx, ...], phase-major, interleaved along dimensions 2 and 3:
// out[n, c, y, x, ...] = in[(y mod sh)·sw + x mod sw][n, c, y div sh, x div sw, ...]. Any
// dimensions after 3 (a channel block) are carried along, so the op runs in NCHW or NCHW[x]c.
std::vector<Tensor> interleave_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  Ints strides = attrs.ints("strides");
  if (strides.size() != 2 || strides[0] < 1 || strides[1] < 1)
    user_error("interleave: attribute 'strides' must be 2 positive values (height, width)");
  size_t phases = static_cast<size_t>(strides[0] * strides[1]);
  if (in.size() != phases)
    user_error("interleave: strides ", strides[0], "x", strides[1], " take ", phases, " inputs; there are ", in.size());
  for (const Tensor& t : in)
    if (t.ndim() < 4 || t.shape() != in[0].shape() || t.dtype() != in[0].dtype())
      user_error("interleave: the inputs must be equal in shape and type, 4-D or more; ", shape_str(in[0].shape()),
                 " and ", shape_str(t.shape()), " are not");
  std::vector<int64_t> shape = in[0].shape();
  shape[2] *= strides[0];
  shape[3] *= strides[1];
  return {compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> at = as_exprs(i);
        at[2] = i[2] / Expr(strides[0]);
        at[3] = i[3] / Expr(strides[1]);
        Expr phase = i[2] % Expr(strides[0]) * Expr(strides[1]) + i[3] % Expr(strides[1]);
        // A balanced tree of selects on the phase: every read is in range, whichever is chosen.
        std::function<Expr(size_t, size_t)> choose = [&](size_t lo, size_t hi) -> Expr {
          if (lo + 1 == hi) return in[lo](at);
          size_t mid = (lo + hi) / 2;
          return select(phase >= Expr(static_cast<int64_t>(mid)), choose(mid, hi), choose(lo, mid));
        };
        return choose(0, phases);
      },
      "interleave", "injective")};
}

// One box of `x`: begin[d] + step[d]*i along each dimension, shape `shape`.
Tensor box(const Tensor& x, const std::vector<int64_t>& begin, const std::vector<int64_t>& step,
           const std::vector<int64_t>& shape, const std::string& name) {
  return compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> at;
        for (size_t d = 0; d < i.size(); ++d) at.push_back(Expr(begin[d]) + i[d] * Expr(step[d]));
        return x(at);
      },
      name, "injective");
}

std::vector<Tensor> split_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 1, 1, "split");
  const Tensor& x = in[0];
  int axis = normalize_axis(attrs.get_int("axis", 0), x.ndim(), "split");
  const Ints& sizes = attrs.ints("split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) user_error("split: sizes must not be negative");
    total += s;
  }
  if (total != x.shape()[axis])
    user_error("split: sizes add up to ", total, " but axis ", axis, " has ", x.shape()[axis], " elements");
  std::vector<Tensor> out;
  std::vector<int64_t> begin(x.ndim(), 0), step(x.ndim(), 1), shape = x.shape();
  for (size_t k = 0; k < sizes.size(); ++k) {
    shape[axis] = sizes[k];
    out.push_back(box(x, begin, step, shape, "split" + std::to_string(k)));
    begin[axis] += sizes[k];
  }
  return out;
}

// ONNX Slice on one dimension of `extent`: the first index and the element count.
std::pair<int64_t, int64_t> slice_range(int64_t start, int64_t end, int64_t step, int64_t extent) {
  auto from_end = [&](int64_t v) { return v < 0 ? v + extent : v; };
  start = from_end(start);
  end = from_end(end);
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, extent);
    end = std::clamp<int64_t>(end, 0, extent);
    return {start, end > start ? (end - start + step - 1) / step : 0};
  }
  start = std::clamp<int64_t>(start, 0, extent - 1);
  end = std::clamp<int64_t>(end, -1, extent - 1);
  return {start, start > end ? (start - end - step - 1) / -step : 0};
}

std::vector<Tensor> strided_slice_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 1, 1, "strided_slice");
  const Tensor& x = in[0];
  const Ints& starts = attrs.ints("starts");
  const Ints& ends = attrs.ints("ends");
  Ints axes(starts.size());
  std::iota(axes.begin(), axes.end(), 0);
  axes = attrs.ints("axes", axes);
  Ints steps = attrs.ints("steps", Ints(starts.size(), 1));
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    user_error("strided_slice: starts, ends, axes and steps must have one value per sliced axis");
  std::vector<int64_t> begin(x.ndim(), 0), step(x.ndim(), 1), shape = x.shape();
  std::vector<bool> seen(x.ndim(), false);
  for (size_t k = 0; k < starts.size(); ++k) {
    int d = normalize_axis(axes[k], x.ndim(), "strided_slice");
    if (seen[d]) user_error("strided_slice: axis ", axes[k], " is sliced twice");
    seen[d] = true;
    if (steps[k] == 0) user_error("strided_slice: step 0 on axis ", axes[k]);
    if (x.shape()[d] == 0) continue;
    auto [first, n] = slice_range(starts[k], ends[k], steps[k], x.shape()[d]);
    begin[d] = first;
    step[d] = steps[k];
    shape[d] = n;
  }
  return {box(x, begin, step, shape, "strided_slice")};
}

// The source index of output index i along a padded dimension of `extent` in edge or reflect mode.
Expr mirrored(Expr i, int64_t extent, bool reflect) {
  if (!reflect) return min(max(i, Expr(0)), Expr(extent - 1));
  if (extent == 1) return Expr(0);
  Expr period = Expr(2 * (extent - 1));
  Expr m = i % period;  // floor modulo: in [0, period)
  return select(m < Expr(extent), m, period - m);
}

std::vector<Tensor> pad_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 1, 1, "pad");
  const Tensor& x = in[0];
  const Ints& pads = attrs.ints("pads");
  if (static_cast<int>(pads.size()) != 2 * x.ndim())
    user_error("pad: 'pads' must have 2 values per dimension (", 2 * x.ndim(), "); it has ", pads.size());
  std::vector<int64_t> before(pads.begin(), pads.begin() + x.ndim()), after(pads.begin() + x.ndim(), pads.end());
  std::string mode = attrs.get_string("mode", "constant");
  if (mode == "constant")
    return {pad(x, before, after, cast(x.dtype(), make_float(attrs.get_float("value", 0.0))), "pad")};
  if (mode != "edge" && mode != "reflect") user_error("pad: mode '", mode, "' is not one of constant, edge, reflect");
  std::vector<int64_t> shape = x.shape();
  for (int d = 0; d < x.ndim(); ++d) {
    if (before[d] < 0 || after[d] < 0) user_error("pad: negative padding is not supported");
    if (x.shape()[d] == 0 && before[d] + after[d] > 0) user_error("pad: cannot ", mode, "-pad an empty dimension");
    if (mode == "reflect" && (before[d] >= x.shape()[d] || after[d] >= x.shape()[d]) && x.shape()[d] > 1)
      user_error("pad: reflect padding must be smaller than the dimension it pads (", x.shape()[d], ")");
    shape[d] += before[d] + after[d];
  }
  return {compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> at;
        for (int d = 0; d < x.ndim(); ++d)
          at.push_back(before[d] == 0 && after[d] == 0
                           ? Expr(i[d])
                           : mirrored(i[d] - Expr(before[d]), x.shape()[d], mode == "reflect"));
        return x(at);
      },
      "pad", "injective")};
}

// out[outer..., idx..., inner...] = data[outer..., indices[idx...], inner...]; negative indices count
// from the end and the read is clamped to the axis, so a bad index cannot read out of bounds.
std::vector<Tensor> take_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 2, 2, "take");
  const Tensor &data = in[0], &indices = in[1];
  if (!indices.dtype().is_int()) user_error("take: indices must be integers; they are ", indices.dtype().str());
  int axis = normalize_axis(attrs.get_int("axis", 0), data.ndim(), "take");
  int64_t extent = data.shape()[axis];
  if (extent == 0) user_error("take: cannot index the empty axis ", axis);
  std::vector<int64_t> shape(data.shape().begin(), data.shape().begin() + axis);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), data.shape().begin() + axis + 1, data.shape().end());
  return {compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx(i.begin() + axis, i.begin() + axis + indices.ndim());
        Expr k = cast(DataType::int32(), indices(idx));
        k = select(k < Expr(0), k + Expr(extent), k);
        std::vector<Expr> at(i.begin(), i.begin() + axis);
        at.push_back(min(max(k, Expr(0)), Expr(extent - 1)));
        at.insert(at.end(), i.begin() + axis + indices.ndim(), i.end());
        return data(at);
      },
      "take", "gather")};
}

// The channel block of a layout_transform attribute: 0 for "NCHW"; UserError for other layouts.
int64_t image_block(const Attributes& attrs, const char* name, int rank) {
  std::string layout = attrs.get_string(name);
  int64_t block = layout_block(layout, 'c');
  if (layout != nchw_layout(block))
    user_error("layout_transform: ", name, " '", layout, "' is not NCHW or NCHW<block>c");
  if (rank >= 0 && graph::layout_rank(layout) != rank)
    user_error("layout_transform: the input is ", rank, "-D but ", name, " '", layout, "' is ", graph::layout_rank(layout), "-D");
  return block;
}

std::vector<Tensor> layout_transform_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 1, 1, "layout_transform");
  const Tensor& x = in[0];
  int64_t from = image_block(attrs, "src_layout", x.ndim()), to = image_block(attrs, "dst_layout", -1);
  if (from == 0 && to == 0) return {compute(x.shape(), [&](const std::vector<Var>& i) { return x(as_exprs(i)); },
                                            "layout_transform", "layout_transform")};
  if (from == 0) return {nchw_to_nchwc(x, to, "layout_transform")};
  if (to == 0) return {nchwc_to_nchw(x, "layout_transform")};
  return {nchwc_to_nchwc(x, to, "layout_transform")};
}

// A reshape's output has no layout unless its attribute "layout" names one: a graph pass that
// replaces an image batch by a reshape of something else (conv_transpose_phases' dense layer) says
// what the result is.
std::vector<std::string> reshape_layouts(const std::vector<std::string>&, const std::vector<int>& ranks,
                                         const Attributes& attrs) {
  std::string layout = attrs.get_string("layout", "");
  if (!layout.empty() && graph::layout_rank(layout) != ranks[0])
    user_error("reshape: the output is ", ranks[0], "-D but its layout '", layout, "' is ", graph::layout_rank(layout),
               "-D");
  return {layout};
}

std::vector<std::string> layout_transform_layouts(const std::vector<std::string>&, const std::vector<int>& ranks,
                                                  const Attributes& attrs) {
  return std::vector<std::string>(ranks.size(), attrs.get_string("dst_layout"));
}

}  // namespace

TESSEL_REGISTER_GRAPH_OP(layout_transform, "image batch between NCHW and NCHW[x]c (src_layout, dst_layout)",
                         OpPattern::Injective, layout_transform_compute, layout_transform_layouts);
TESSEL_REGISTER_GRAPH_OP(reshape, "the same elements in another shape (shape; optional output layout)",
                         OpPattern::Injective, reshape_compute, reshape_layouts);
TESSEL_REGISTER_GRAPH_OP(identity, "a copy of the input", OpPattern::Injective, identity_compute);
TESSEL_REGISTER_GRAPH_OP(broadcast_to, "the input broadcast (numpy rules) with `shape`", OpPattern::Injective,
                         broadcast_to_compute);
TESSEL_REGISTER_GRAPH_OP(transpose, "axes permuted (perm; default reversed)", OpPattern::Injective, transpose_compute,
                         no_layouts);
TESSEL_REGISTER_GRAPH_OP(concat, "inputs joined along `axis`", OpPattern::Injective, concat_compute);
TESSEL_REGISTER_GRAPH_OP(interleave,
                         "sh*sw equal inputs interleaved along H and W (strides [sh, sw]; input (y mod sh)*sw + "
                         "x mod sw at y, x), NCHW or NCHW[x]c",
                         OpPattern::Injective, interleave_compute);
TESSEL_REGISTER_GRAPH_OP(split, "input cut along `axis` into pieces of sizes `split`", OpPattern::Injective,
                         split_compute);
TESSEL_REGISTER_GRAPH_OP(strided_slice, "a strided box of the input (starts, ends, axes, steps as ONNX Slice)",
                         OpPattern::Injective, strided_slice_compute);
TESSEL_REGISTER_GRAPH_OP(pad, "padding (pads, mode constant/edge/reflect, value)", OpPattern::Injective, pad_compute);
TESSEL_REGISTER_GRAPH_OP(take, "elements of data selected by integer indices along `axis` (ONNX Gather)",
                         OpPattern::Injective, take_compute, no_layouts);

}  // namespace tessel::ops
