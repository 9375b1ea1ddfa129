// Max and average pooling as graph operators, with ONNX's full window semantics: asymmetric pads,
// ceil_mode, dilation (max only) and count_include_pad. The expressions have the shape of
// ops/pool.h's (a "pad" stage, then the window reduction; for the average a "pool_sum" stage and
// the division), so the pooling schedules registered there schedule them. Data is NCHW or, after
// the layout pass, channel-blocked NCHW[x]c (5-D, the block last), pooled the same way.
//
// Attributes: kernel_shape [kh, kw], strides, dilations, pads [top, left, bottom, right],
// ceil_mode (0/1), count_include_pad (0/1).
#include "ops/graph/graph_op_util.h"
#include "ops/pad.h"
#include "support/error.h"

namespace tessel::ops {

namespace {

struct PoolGeometry {
  std::array<int64_t, 2> kernel, stride, dilation, out;
  std::array<int64_t, 4> pads;       // top, left, bottom, right
  std::array<int64_t, 2> extra_end;  // padding past pads[2..3] that ceil_mode's last window reads
};

std::array<int64_t, 2> pair(const Attributes& a, const char* name, int64_t fallback, const char* op) {
  Ints v = name == std::string("kernel_shape") ? a.ints(name) : a.ints(name, {fallback, fallback});
  if (v.size() != 2 || v[0] <= 0 || v[1] <= 0)
    user_error(op, ": attribute '", name, "' must be 2 positive values (height, width)");
  return {v[0], v[1]};
}

// UserError unless `data` is NCHW (4-D) or NCHW[x]c (5-D).
void check_image(const Tensor& data, const char* op) {
  if (data.ndim() != 4 && data.ndim() != 5)
    user_error(op, ": data must be 4-D (NCHW) or 5-D (NCHW[x]c); it is ", data.ndim(), "-D");
}

// The output shape: the input's with the spatial extents (dimensions 2 and 3) replaced.
std::vector<int64_t> pooled_shape(const Tensor& data, std::array<int64_t, 2> spatial) {
  std::vector<int64_t> shape = data.shape();
  shape[2] = spatial[0], shape[3] = spatial[1];
  return shape;
}

// An element of a [N, C, H, W(, c)] tensor at spatial point (y, x) of output index `i`.
Expr at_point(const Tensor& t, const std::vector<Var>& i, Expr y, Expr x) {
  std::vector<Expr> at = as_exprs(i);
  at[2] = std::move(y), at[3] = std::move(x);
  return t(at);
}

PoolGeometry geometry(const Tensor& data, const Attributes& a, const char* op) {
  check_image(data, op);
  check_float(data, op);
  PoolGeometry g;
  g.kernel = pair(a, "kernel_shape", 1, op);
  g.stride = pair(a, "strides", 1, op);
  g.dilation = pair(a, "dilations", 1, op);
  Ints pads = a.ints("pads", {0, 0, 0, 0});
  if (pads.size() != 4) user_error(op, ": attribute 'pads' must have 4 values (top, left, bottom, right)");
  bool ceil_mode = a.get_int("ceil_mode", 0) != 0;
  for (int i = 0; i < 4; ++i) {
    if (pads[i] < 0) user_error(op, ": pads must not be negative");
    g.pads[i] = pads[i];
  }
  for (int d = 0; d < 2; ++d) {
    int64_t input = data.shape()[2 + d];
    int64_t window = g.dilation[d] * (g.kernel[d] - 1) + 1;
    int64_t span = input + g.pads[d] + g.pads[2 + d] - window;
    if (span < 0) user_error(op, ": the ", window, "-wide window does not fit the padded input extent ", input);
    int64_t out = (ceil_mode ? (span + g.stride[d] - 1) / g.stride[d] : span / g.stride[d]) + 1;
    // As PyTorch (and ONNX since): a last window starting in the end padding is dropped.
    if (ceil_mode && (out - 1) * g.stride[d] >= input + g.pads[d]) --out;
    g.out[d] = out;
    g.extra_end[d] = std::max<int64_t>(0, (out - 1) * g.stride[d] + window - (input + g.pads[d] + g.pads[2 + d]));
  }
  return g;
}

Tensor padded_input(const Tensor& data, const PoolGeometry& g, Expr value, const std::string& name) {
  std::vector<int64_t> before(data.ndim(), 0), after(data.ndim(), 0);
  before[2] = g.pads[0], before[3] = g.pads[1];
  after[2] = g.pads[2] + g.extra_end[0], after[3] = g.pads[3] + g.extra_end[1];
  if (before == std::vector<int64_t>(data.ndim(), 0) && after == before) return data;
  return pad(data, before, after, std::move(value), name + ".pad");
}

// The window's reduction over the padded input, tagged `tag`.
Tensor window_reduce(const Tensor& padded, const PoolGeometry& g, const std::vector<int64_t>& shape, ReduceOp combiner,
                     const std::string& name, const std::string& tag) {
  IterVar ry = reduce_axis(g.kernel[0], "ry"), rx = reduce_axis(g.kernel[1], "rx");
  return compute(
      shape,
      [&](const std::vector<Var>& i) {
        Expr read = at_point(padded, i, i[2] * Expr(g.stride[0]) + ry.var() * Expr(g.dilation[0]),
                             i[3] * Expr(g.stride[1]) + rx.var() * Expr(g.dilation[1]));
        return combiner == ReduceOp::Max ? max_reduce(read, {ry, rx}) : sum(read, {ry, rx});
      },
      name, tag);
}

std::vector<Tensor> max_pool_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 1, 1, "max_pool2d");
  PoolGeometry g = geometry(in[0], attrs, "max_pool2d");
  Tensor padded = padded_input(in[0], g, reduce_identity(ReduceOp::Max, in[0].dtype()), "max_pool2d");
  return {window_reduce(padded, g, pooled_shape(in[0], g.out), ReduceOp::Max, "max_pool2d", "max_pool2d")};
}

// How many window points along one dimension lie in [lo, hi) when the window starts at `start`.
Expr points_between(Expr start, int64_t window, int64_t lo, int64_t hi) {
  return min(start + Expr(window), Expr(hi)) - max(start, Expr(lo));
}

std::vector<Tensor> avg_pool_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 1, 1, "avg_pool2d");
  PoolGeometry g = geometry(in[0], attrs, "avg_pool2d");
  if (g.dilation[0] != 1 || g.dilation[1] != 1) user_error("avg_pool2d: dilations other than 1 are not supported");
  bool include_pad = attrs.get_int("count_include_pad", 0) != 0;
  const Tensor& data = in[0];
  Tensor padded = padded_input(data, g, make_zero(data.dtype()), "avg_pool2d");
  std::vector<int64_t> shape = pooled_shape(data, g.out);
  Tensor total = window_reduce(padded, g, shape, ReduceOp::Sum, "avg_pool2d.sum", "pool_sum");
  return {compute(
      shape,
      [&](const std::vector<Var>& i) {
        Expr count = Expr(1);
        std::array<Var, 2> at{i[2], i[3]};
        for (int d = 0; d < 2; ++d) {
          int64_t extent = data.shape()[2 + d];
          Expr start = at[d] * Expr(g.stride[d]) - Expr(g.pads[d]);
          count = count * (include_pad ? points_between(start, g.kernel[d], -g.pads[d], extent + g.pads[2 + d])
                                       : points_between(start, g.kernel[d], 0, extent));
        }
        return total(as_exprs(i)) / cast(data.dtype(), count);
      },
      "avg_pool2d", "avg_pool2d")};
}

}  // namespace

TESSEL_REGISTER_GRAPH_OP(max_pool2d, "2-D max pooling, NCHW or NCHW[x]c (kernel_shape, strides, pads, dilations, ceil_mode)",
                         OpPattern::ComplexOutFusable, max_pool_compute, nchw_layouts);
TESSEL_REGISTER_GRAPH_OP(avg_pool2d,
                         "2-D average pooling, NCHW or NCHW[x]c (kernel_shape, strides, pads, ceil_mode, count_include_pad)",
                         OpPattern::ComplexOutFusable, avg_pool_compute, nchw_layouts);

}  // namespace tessel::ops
