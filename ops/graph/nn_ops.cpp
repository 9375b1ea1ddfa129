// The complex-out-fusable graph operators that carry most of a network's work: conv2d (groups,
// dilation, asymmetric padding; depthwise when every channel is its own group), conv2d_transpose,
// dense (X·Wᵀ) and matmul (numpy batched matrix product). Each reuses the operator family of ops/
// with its tuned default schedule where there is one.
//
// The layout pass (passes/graph/alter_layout.cpp) turns conv2d into conv2d_nchwc or
// depthwise_conv2d_nchwc: the same convolutions on channel-blocked data (NCHW[x]c) and weights
// (OIHW[x]i[y]o), computed by ops/'s blocked families (their tags pick the fast CPU schedules), and
// dense into dense_packed, its constant weight packed into the GEMM schedule's panels.
//
// Attributes (ONNX's, normalized by the frontend): strides [sh, sw], dilations [dh, dw],
// pads [top, left, bottom, right], groups; conv2d_transpose also output_padding [h, w].
#include "ops/conv2d_nchw.h"
#include "ops/conv2d_nchwc.h"
#include "ops/conv2d_pixels.h"
#include "ops/conv2d_shares.h"
#include "ops/conv2d_winograd.h"
#include "ops/depthwise_conv2d.h"
#include "ops/gemm.h"
#include "ops/graph/graph_op_util.h"
#include "ops/pad.h"
#include "runtime/ndarray.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

namespace {

struct Window2d {
  Conv2dParams params;            // strides, dilations, groups, and symmetric padding when it is
  std::array<int64_t, 4> pads{};  // top, left, bottom, right
  bool symmetric() const { return pads[0] == pads[2] && pads[1] == pads[3]; }
};

std::array<int64_t, 2> pair_attr(const Attributes& a, const char* name, int64_t fallback, const char* op) {
  Ints v = a.ints(name, {fallback, fallback});
  if (v.size() != 2) user_error(op, ": attribute '", name, "' must have 2 values (height, width); it has ", v.size());
  return {v[0], v[1]};
}

Window2d window_attrs(const Attributes& a, const char* op) {
  Window2d w;
  w.params.stride = pair_attr(a, "strides", 1, op);
  w.params.dilation = pair_attr(a, "dilations", 1, op);
  w.params.groups = a.get_int("groups", 1);
  Ints pads = a.ints("pads", {0, 0, 0, 0});
  if (pads.size() != 4)
    user_error(op, ": attribute 'pads' must have 4 values (top, left, bottom, right); it has ", pads.size());
  for (int i = 0; i < 4; ++i) {
    if (pads[i] < 0) user_error(op, ": pads must not be negative; pad ", i, " is ", pads[i]);
    w.pads[i] = pads[i];
  }
  check_params(w.params, op);
  return w;
}

// The checks every convolution makes of its (data, weight) inputs, then its window attributes.
Window2d checked_window(const std::vector<Tensor>& in, const Attributes& attrs, const char* op, int data_rank,
                        const char* data, const char* weight) {
  check_input_count(in, 2, 2, op);
  check_rank(in[0], data_rank, op, data);
  check_rank(in[1], data_rank == 4 ? 4 : 6, op, weight);
  check_float(in[0], op);
  return window_attrs(attrs, op);
}

// The input padded on its spatial dimensions (2 and 3, NCHW or NCHW[x]c) by the pads a symmetric
// Conv2dParams cannot hold.
Tensor pad_asymmetric(const Tensor& data, const Window2d& w, Expr value, const std::string& name) {
  std::vector<int64_t> before(data.ndim(), 0), after(data.ndim(), 0);
  before[2] = w.pads[0], before[3] = w.pads[1], after[2] = w.pads[2], after[3] = w.pads[3];
  return pad(data, before, after, std::move(value), name + ".pad");
}

// The data a convolution slides over: itself when the padding is symmetric (then held by
// w.params), else padded here.
Tensor window_input(const Tensor& data, Window2d& w, const std::string& name) {
  if (!w.symmetric()) return pad_asymmetric(data, w, make_zero(data.dtype()), name);
  w.params.padding = {w.pads[0], w.pads[1]};
  return data;
}

std::vector<Tensor> conv2d_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  Window2d w = checked_window(in, attrs, "conv2d", 4, "data (NCHW)", "weight (OIHW)");
  Tensor data = window_input(in[0], w, "conv2d");
  int64_t channels = data.shape()[1];
  bool depthwise = w.params.groups == channels && channels > 1 && in[1].shape()[1] == 1;
  if (depthwise) return {depthwise_conv2d_nchw(data, in[1], w.params, "conv2d")};
  return {conv2d_nchw(data, in[1], w.params, "conv2d")};
}

// conv2d_nchwc: data [N, C/ib, H, W, ib], weight [O/ob, C/(groups·ib), KH, KW, ib, ob].
std::vector<Tensor> conv2d_nchwc_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  const char* op = "conv2d_nchwc";
  Window2d w = checked_window(in, attrs, op, 5, "data (NCHW[x]c)", "weight (OIHW[x]i[y]o)");
  // The 1x1 forms, chosen by an attribute a pass sets.
  auto require_pointwise = [&](const char* attribute) {
    if (!pointwise_window(attrs, in[1].shape()) || w.params.groups != 1)
      user_error(op, ": ", attribute, " needs a 1x1 window, stride 1, no padding and one group; drop the attribute");
  };
  if (attrs.get_int("pixel_tiles", 0)) {  // set by the layout pass (ops/conv2d_pixels.h)
    require_pointwise("pixel_tiles");
    return {conv2d_nchwc_pixels(in[0], in[1], op)};
  }
  if (int64_t shares = attrs.get_int("channel_shares", 1); shares > 1) {  // set by fuse_blocks (ops/conv2d_shares.h)
    require_pointwise("channel_shares");
    return {conv2d_nchwc_shares(in[0], in[1], shares, op)};
  }
  return {conv2d_nchwc(window_input(in[0], w, op), in[1], w.params, op)};
}

// depthwise_conv2d_nchwc: data [N, C/b, H, W, b], weight [C/b, 1, KH, KW, 1, b] (multiplier 1).
std::vector<Tensor> depthwise_conv2d_nchwc_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  const char* op = "depthwise_conv2d_nchwc";
  Window2d w = checked_window(in, attrs, op, 5, "data (NCHW[x]c)", "weight (OIHW1i[x]o)");
  const auto &d = in[0].shape(), &k = in[1].shape();
  if (k[0] != d[1] || k[1] != 1 || k[4] != 1 || k[5] != d[4])
    user_error(op, ": the weight must be [", d[1], ", 1, KH, KW, 1, ", d[4], "] for data ", shape_str(d), "; it is ",
               shape_str(k));
  return {depthwise_conv2d_nchwc(window_input(in[0], w, op), in[1], w.params, op)};
}

// conv2d_winograd_nchwc: data [N, C/ib, H, W, ib], weights [α, α, O/ob, C, ob] transformed at
// compile time (ops/conv2d_winograd.h's winograd_weights); attribute "tile" is m (α = m + 2). The
// layout pass chooses it for 3×3 stride-1 convolutions where ops::winograd_tile says it pays.
std::vector<Tensor> conv2d_winograd_nchwc_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  const char* op = "conv2d_winograd_nchwc";
  check_input_count(in, 2, 2, op);
  check_rank(in[0], 5, op, "data (NCHW[x]c)");
  check_rank(in[1], 5, op, "weights ([α, α, O/ob, C, ob])");
  check_float(in[0], op);
  Window2d w = window_attrs(attrs, op);
  if (w.params.stride != std::array<int64_t, 2>{1, 1} || w.params.dilation != std::array<int64_t, 2>{1, 1})
    user_error(op, ": strides and dilations must be 1; use conv2d_nchwc");
  Tensor data = window_input(in[0], w, op);
  return {conv2d_winograd_nchwc(data, in[1], w.params.padding, attrs.get_int("tile", 2), op)};
}

// Output layout of the blocked convolutions: channels in the weight's output block ("OIHW8i16o"
// gives "NCHW16c").
std::vector<std::string> blocked_conv_layouts(const std::vector<std::string>& inputs, const std::vector<int>& ranks,
                                              const Attributes&) {
  int64_t block = inputs.size() == 2 ? layout_block(inputs[1], 'o') : 0;
  return std::vector<std::string>(ranks.size(), block > 0 ? nchw_layout(block) : "");
}

// The transposed convolution as a convolution with stride 1 (as TVM's x86 conv2d_transpose): the
// input spread out by the stride with zeros between its points and padded by what the window
// hangs over, convolved with the kernel flipped in space and with its in/out channels swapped.
std::vector<Tensor> conv2d_transpose_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  const char* op = "conv2d_transpose";
  Window2d w = checked_window(in, attrs, op, 4, "data (NCHW)", "weight (IOHW)");
  std::array<int64_t, 2> extra = pair_attr(attrs, "output_padding", 0, op);
  const Tensor& x = in[0];
  const Tensor& k = in[1];
  int64_t groups = w.params.groups, c = x.shape()[1];
  if (k.shape()[0] != c || c % groups != 0)
    user_error(op, ": the weight must be [C, O/groups, KH, KW] with C = ", c, " input channels divisible by ", groups,
               " groups; it is ", shape_str(k.shape()));
  int64_t out_per_group = k.shape()[1], in_per_group = c / groups;
  std::array<int64_t, 2> before, extent;
  for (int d = 0; d < 2; ++d) {
    int64_t span = w.params.dilation[d] * (k.shape()[2 + d] - 1);
    before[d] = span - w.pads[d];
    int64_t out = w.params.stride[d] * (x.shape()[2 + d] - 1) + extra[d] + span + 1 - w.pads[d] - w.pads[2 + d];
    if (out <= 0) user_error(op, ": the padding leaves no output along dimension ", 2 + d);
    extent[d] = out + span;  // the spread input the stride-1 window slides over
  }
  Tensor spread = compute(
      {x.shape()[0], c, extent[0], extent[1]},
      [&](Var n, Var ch, Var y, Var xx) {
        Expr sy = y - Expr(before[0]), sx = xx - Expr(before[1]);
        Expr iy = sy / Expr(w.params.stride[0]), ix = sx / Expr(w.params.stride[1]);
        Expr inside = sy >= Expr(0) && sx >= Expr(0) && eq(sy % Expr(w.params.stride[0]), Expr(0)) &&
                      eq(sx % Expr(w.params.stride[1]), Expr(0)) && iy < Expr(x.shape()[2]) && ix < Expr(x.shape()[3]);
        Expr read =
            x(n, ch, min(max(iy, Expr(0)), Expr(x.shape()[2] - 1)), min(max(ix, Expr(0)), Expr(x.shape()[3] - 1)));
        return select(inside, read, make_zero(x.dtype()));
      },
      "conv2d_transpose.spread", "pad");
  int64_t kh = k.shape()[2], kw = k.shape()[3];
  Tensor flipped = compute(
      {out_per_group * groups, in_per_group, kh, kw},
      [&](Var o, Var i, Var y, Var xx) {
        Expr group = o / Expr(out_per_group);
        return k(group * Expr(in_per_group) + i, o % Expr(out_per_group), Expr(kh - 1) - y, Expr(kw - 1) - xx);
      },
      "conv2d_transpose.weight", "injective");
  Conv2dParams p;
  p.dilation = w.params.dilation;
  p.groups = groups;
  return {conv2d_nchw(spread, flipped, p, op)};
}

// The optional attribute "panel" is the packing's panel width (0: the target's default); a tuned
// GEMM configuration sets it (compiler/group_schedule.h).
std::vector<Tensor> dense_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 2, 2, "dense");
  check_float(in[0], "dense");
  int64_t panel = attrs.get_int("panel", 0);
  if (panel < 0) user_error("dense: attribute 'panel' must not be negative; it is ", panel);
  return {dense(in[0], in[1], panel, "dense")};
}

// dense_packed: X[M, K] and W already in panels [ceil(N/bn), K, bn] (attribute units = N).
std::vector<Tensor> dense_packed_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 2, 2, "dense_packed");
  check_float(in[0], "dense_packed");
  return {dense_packed(in[0], in[1], attrs.get_int("units"), "dense_packed")};
}

// A[..., M, K] · B[..., K, N] with the leading (batch) dimensions broadcast; both at least 2-D.
std::vector<Tensor> matmul_compute(const std::vector<Tensor>& in, const Attributes&) {
  const char* op = "matmul";
  check_input_count(in, 2, 2, op);
  const Tensor &a = in[0], &b = in[1];
  check_float(a, op);
  if (a.ndim() < 2 || b.ndim() < 2)
    user_error(op, ": both operands must be at least 2-D; they are ", a.ndim(), "-D and ", b.ndim(), "-D");
  int64_t m = a.shape()[a.ndim() - 2], k = a.shape()[a.ndim() - 1], n = b.shape()[b.ndim() - 1];
  if (b.shape()[b.ndim() - 2] != k)
    user_error(op, ": ", shape_str(a.shape()), " and ", shape_str(b.shape()), " do not multiply: ", k, " columns vs ",
               b.shape()[b.ndim() - 2], " rows");
  if (a.ndim() == 2 && b.ndim() == 2) return {gemm(a, b, 0, op)};
  std::vector<int64_t> batch_a(a.shape().begin(), a.shape().end() - 2), batch_b(b.shape().begin(), b.shape().end() - 2);
  std::vector<int64_t> shape = broadcast_shapes(batch_a, batch_b, op);
  size_t batch = shape.size();
  shape.push_back(m);
  shape.push_back(n);
  IterVar rk = reduce_axis(k, "k");
  return {compute(
      shape,
      [&](const std::vector<Var>& i) {
        auto operand = [&](const Tensor& t, Expr row, Expr col) {
          std::vector<Var> lead(i.begin() + (batch - (t.ndim() - 2)), i.begin() + batch);
          std::vector<Expr> at;
          for (size_t d = 0; d < lead.size(); ++d) at.push_back(t.shape()[d] == 1 ? Expr(0) : Expr(lead[d]));
          at.push_back(row);
          at.push_back(col);
          return t(at);
        };
        return sum(operand(a, i[batch], rk.var()) * operand(b, rk.var(), i[batch + 1]), {rk});
      },
      op, "batch_matmul")};
}

}  // namespace

TESSEL_REGISTER_GRAPH_OP(conv2d, "2-D convolution, NCHW data and OIHW weight (strides, pads, dilations, groups)",
                         OpPattern::ComplexOutFusable, conv2d_compute, nchw_layouts);
TESSEL_REGISTER_GRAPH_OP(conv2d_nchwc,
                         "2-D convolution, NCHW[x]c data and OIHW[x]i[y]o weight (strides, pads, dilations, groups)",
                         OpPattern::ComplexOutFusable, conv2d_nchwc_compute, blocked_conv_layouts);
TESSEL_REGISTER_GRAPH_OP(depthwise_conv2d_nchwc,
                         "depthwise 2-D convolution, NCHW[x]c data and OIHW1i[x]o weight (strides, pads, dilations)",
                         OpPattern::ComplexOutFusable, depthwise_conv2d_nchwc_compute, blocked_conv_layouts);
TESSEL_REGISTER_GRAPH_OP(conv2d_winograd_nchwc,
                         "3x3 stride-1 convolution by Winograd's F(m x m, 3 x 3), NCHW[x]c data and weights "
                         "transformed at compile time ([a, a, O/ob, C, ob], attribute tile = m)",
                         OpPattern::ComplexOutFusable, conv2d_winograd_nchwc_compute, blocked_conv_layouts);
TESSEL_REGISTER_GRAPH_OP(conv2d_transpose, "2-D transposed convolution, NCHW data and IOHW weight",
                         OpPattern::ComplexOutFusable, conv2d_transpose_compute, nchw_layouts);
TESSEL_REGISTER_GRAPH_OP(dense, "X[M, K] · W[N, K]ᵀ", OpPattern::ComplexOutFusable, dense_compute);
TESSEL_REGISTER_GRAPH_OP(dense_packed, "X[M, K] · Wᵀ with W packed in panels [ceil(N/bn), K, bn] (units N)",
                         OpPattern::ComplexOutFusable, dense_packed_compute);
TESSEL_REGISTER_GRAPH_OP(matmul, "A[..., M, K] · B[..., K, N], batch dimensions broadcast",
                         OpPattern::ComplexOutFusable, matmul_compute);

}  // namespace tessel::ops
