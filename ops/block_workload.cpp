// A fused block's workload: shape, text, canonical and blocked expressions (ops/block_workload.h).
#include "ops/block_workload.h"

#include <algorithm>

#include "datasets/workloads.h"
#include "ops/conv2d_nchw.h"
#include "ops/conv2d_nchwc.h"
#include "ops/conv2d_shares.h"
#include "ops/depthwise_conv2d.h"
#include "ops/elementwise.h"
#include "ops/layout_transform.h"
#include "support/error.h"

namespace tessel::ops {

namespace {

constexpr const char* kForm = "block:N,C,H,W,B/cK,S,P,OC/dK,S,P/...[/sT] (2 to 4 stages; T channel shares)";

std::vector<std::string> split_on(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t end; (end = text.find(separator, start)) != std::string::npos; start = end + 1)
    parts.push_back(text.substr(start, end - start));
  parts.push_back(text.substr(start));
  return parts;
}

// An input extent of the block (H or W) after its first `count` stages.
int64_t extent_after(const std::vector<BlockStage>& stages, int64_t extent, size_t count) {
  for (size_t s = 0; s < count; ++s) extent = (extent + 2 * stages[s].pad - stages[s].kernel) / stages[s].stride + 1;
  return extent;
}

// Stage `i` as the operator workload it is, so the operators' own checks apply to it.
Conv2dShape stage_conv2d(const BlockShape& b, size_t i) {
  const BlockStage& s = b.stages[i];
  return {b.n, b.channels_at(i), b.height_at(i), b.width_at(i), s.out_channels, s.kernel, s.kernel, s.stride, s.pad};
}

DepthwiseShape stage_depthwise(const BlockShape& b, size_t i) {
  const BlockStage& s = b.stages[i];
  return {b.n, b.channels_at(i), b.height_at(i), b.width_at(i), s.kernel, s.stride, s.pad};
}

BlockStage parse_stage(const std::string& text, const std::string& whole) {
  if (text.size() < 2 || (text[0] != 'c' && text[0] != 'd'))
    user_error("bad block shape '", whole, "': stage '", text, "' is neither cK,S,P,OC nor dK,S,P; the form is ",
               kForm);
  BlockStage s;
  s.depthwise = text[0] == 'd';
  std::vector<int64_t> v = s.depthwise ? parse_shape_fields("block stage", text.substr(1), {"K", "S", "P"})
                                       : parse_shape_fields("block stage", text.substr(1), {"K", "S", "P", "OC"});
  s.kernel = v[0], s.stride = v[1], s.pad = v[2];
  if (!s.depthwise) s.out_channels = v[3];
  return s;
}

void validate_shares(const BlockShape& b, const std::string& text) {
  if (b.shares < 1) user_error("bad block shape '", text, "': ", b.shares, " shares; use at least 1");
  if (b.shares == 1) return;
  const BlockStage& last = b.stages.back();
  size_t i = b.stages.size() - 1;
  if (last.depthwise || last.kernel != 1 || last.stride != 1 || last.pad != 0)
    user_error("bad block shape '", text, "': shares need a last stage of c1,1,0,OC (a 1x1 convolution)");
  if (b.channels_at(i) % b.shares != 0)
    user_error("bad block shape '", text, "': ", b.shares, " shares do not divide the last stage's ", b.channels_at(i),
               " input channels; use a divisor");
}

void validate(const BlockShape& b, const std::string& text) {
  if (b.stages.size() < 2 || b.stages.size() > 4)
    user_error("bad block shape '", text, "': ", b.stages.size(), " stages; the form is ", kForm);
  if (b.in_block < 0 || (b.in_block > 0 && b.c % b.in_block != 0))
    user_error("bad block shape '", text, "': the input block ", b.in_block, " does not divide its ", b.c,
               " channels (0: NCHW)");
  for (size_t i = 0; i < b.stages.size(); ++i) {
    if (b.stages[i].depthwise)
      tessel::validate(stage_depthwise(b, i));
    else
      tessel::validate(stage_conv2d(b, i));
  }
  validate_shares(b, text);
}

Tensor clip6(const Tensor& x, const std::string& name) {
  return compute(x.shape(), [&](const std::vector<Var>& i) {
    Expr v = x(std::vector<Expr>(i.begin(), i.end()));
    return min(max(v, make_float(0.0)), make_float(6.0));
  }, name, "injective");
}

// The block's input in the block it arrives in (NCHW when in_block is 0).
Tensor input_placeholder(const BlockShape& b) {
  if (b.in_block == 0) return placeholder({b.n, b.c, b.h, b.w}, DataType::float32(), "data");
  return placeholder({b.n, b.c / b.in_block, b.h, b.w, b.in_block}, DataType::float32(), "data");
}

// `x` (NCHW if block is 0, else NCHW[block]c) in block `to`.
Tensor in_block(const Tensor& x, int64_t block, int64_t to) {
  if (block == to) return x;
  if (block == 0) return nchw_to_nchwc(x, to, "layout_transform");
  return to == 0 ? nchwc_to_nchw(x, "layout_transform") : nchwc_to_nchwc(x, to, "layout_transform");
}

// A 1x1 convolution in NCHW summed in `shares` partial sums over shares of the input channels, then
// added: the order of additions a block split by channels computes (ops/conv2d_shares.h), so its
// workload key differs from the block split by rows.
Tensor pointwise_in_shares_nchw(const Tensor& x, const Tensor& kernel, int64_t shares) {
  const auto& d = x.shape();
  int64_t share = d[1] / shares;
  IterVar ic = reduce_axis(share, "ic");
  Tensor partial = compute({shares, d[0], kernel.shape()[0], d[2], d[3]}, [&](Var t, Var n, Var oc, Var h, Var w) {
    Expr channel = t * Expr(share) + ic.var();
    return sum(x(n, channel, h, w) * kernel(oc, channel, 0, 0), {ic});
  }, "partial");
  return compute({d[0], kernel.shape()[0], d[2], d[3]}, [&](Var n, Var oc, Var h, Var w) {
    Expr total = partial(0, n, oc, h, w);
    for (int64_t t = 1; t < shares; ++t) total = total + partial(Expr(t), n, oc, h, w);
    return total;
  }, "conv2d_shares");
}

}  // namespace

int64_t BlockShape::channels_at(size_t i) const {
  int64_t channels = c;
  for (size_t s = 0; s < i; ++s)
    if (!stages[s].depthwise) channels = stages[s].out_channels;
  return channels;
}

int64_t BlockShape::height_at(size_t i) const { return extent_after(stages, h, i); }

int64_t BlockShape::width_at(size_t i) const { return extent_after(stages, w, i); }

double BlockShape::flops() const {
  double total = 0;
  for (size_t i = 0; i < stages.size(); ++i)
    total += stages[i].depthwise ? stage_depthwise(*this, i).flops() : stage_conv2d(*this, i).flops();
  return total;
}

int64_t BlockShape::reduction_size() const {
  int64_t largest = 0;
  for (size_t i = 0; i < stages.size(); ++i)
    largest = std::max(largest, stages[i].depthwise ? stage_depthwise(*this, i).reduction_size()
                                                    : stage_conv2d(*this, i).reduction_size());
  return largest;
}

BlockShape parse_block_shape(const std::string& text) {
  std::vector<std::string> parts = split_on(text, '/');
  std::vector<int64_t> v = parse_shape_fields("block", parts[0], {"N", "C", "H", "W", "B"});
  BlockShape b{v[0], v[1], v[2], v[3], v[4], {}};
  bool has_shares = parts.size() > 1 && parts.back().rfind('s', 0) == 0;
  if (has_shares) b.shares = parse_shape_fields("block shares", parts.back().substr(1), {"T"})[0];
  for (size_t i = 1; i + (has_shares ? 1 : 0) < parts.size(); ++i) b.stages.push_back(parse_stage(parts[i], text));
  validate(b, text);
  return b;
}

std::string block_shape_text(const BlockShape& b) {
  std::string text = detail::concat(b.n, ",", b.c, ",", b.h, ",", b.w, ",", b.in_block);
  for (const BlockStage& s : b.stages) {
    text += detail::concat("/", s.depthwise ? "d" : "c", s.kernel, ",", s.stride, ",", s.pad);
    if (!s.depthwise) text += detail::concat(",", s.out_channels);
  }
  if (b.shares > 1) text += detail::concat("/s", b.shares);
  return text;
}

std::string describe(const BlockShape& b) {
  std::string text = detail::concat("N=", b.n, " C=", b.c, " H=", b.h, " W=", b.w, " B=", b.in_block, ":");
  for (size_t i = 0; i < b.stages.size(); ++i) {
    const BlockStage& s = b.stages[i];
    text += detail::concat(i ? ", " : " ", s.depthwise ? "depthwise " : "conv ", s.kernel, "x", s.kernel, " S",
                           s.stride, " P", s.pad);
    if (!s.depthwise) text += detail::concat(" ->", s.out_channels);
  }
  if (b.shares > 1) text += detail::concat(", in ", b.shares, " channel shares");
  return text;
}

std::vector<Tensor> block_expression(const BlockShape& b) {
  std::vector<Tensor> args;
  Tensor data = input_placeholder(b);
  args.push_back(data);
  Tensor x = in_block(data, b.in_block, 0);
  for (size_t i = 0; i < b.stages.size(); ++i) {
    const BlockStage& s = b.stages[i];
    int64_t c = b.channels_at(i), oc = s.depthwise ? c : s.out_channels;
    Tensor kernel = placeholder({oc, s.depthwise ? 1 : c, s.kernel, s.kernel}, DataType::float32(), "kernel");
    Tensor bias = placeholder({oc}, DataType::float32(), "bias");
    Conv2dParams params{{s.stride, s.stride}, {s.pad, s.pad}, {1, 1}, s.depthwise ? c : 1};
    x = s.depthwise      ? depthwise_conv2d_nchw(x, kernel, params)
        : b.in_shares(i) ? pointwise_in_shares_nchw(x, kernel, b.shares)
                         : conv2d_nchw(x, kernel, params);
    x = bias_add(x, bias);
    if (i + 1 < b.stages.size()) x = clip6(x, "clip");
    args.push_back(kernel);
    args.push_back(bias);
  }
  args.push_back(x);
  return args;
}

std::vector<Tensor> BlockInstance::args() const {
  std::vector<Tensor> all = inputs;
  all.push_back(output);
  return all;
}

BlockInstance block_instance(const BlockShape& b, const Target& target) {
  BlockInstance made;
  auto node = [&](Tensor t) {
    made.node_outputs.push_back(t);
    return t;
  };
  Tensor x = input_placeholder(b);
  made.inputs.push_back(x);
  int64_t block = b.in_block;
  for (size_t i = 0; i < b.stages.size(); ++i) {
    const BlockStage& s = b.stages[i];
    int64_t c = b.channels_at(i);
    Conv2dParams params{{s.stride, s.stride}, {s.pad, s.pad}, {1, 1}, 1};
    Tensor kernel;
    if (s.depthwise) {  // in its producer's block, as the layout pass runs it
      int64_t db = block ? block : choose_depthwise_block(c, target);
      x = node(in_block(x, block, db));
      kernel = placeholder({c / db, 1, s.kernel, s.kernel, 1, db}, DataType::float32(), "kernel");
      x = node(depthwise_conv2d_nchwc(x, kernel, params));
    } else {
      Conv2dBlocks blocks = choose_conv2d_blocks(c, s.out_channels, 1, target);
      x = node(in_block(x, block, blocks.ib));
      kernel = placeholder({s.out_channels / blocks.ob, c / blocks.ib, s.kernel, s.kernel, blocks.ib, blocks.ob},
                           DataType::float32(), "kernel");
      x = node(b.in_shares(i) ? conv2d_nchwc_shares(x, kernel, b.shares) : conv2d_nchwc(x, kernel, params));
    }
    block = x.shape()[4];
    Tensor bias = placeholder({1, x.shape()[1], 1, 1, block}, DataType::float32(), "bias");
    Tensor conv = x;
    x = node(compute(conv.shape(), [&](Var n, Var cb, Var h, Var w, Var v) {
      return conv(n, cb, h, w, v) + bias(0, cb, 0, 0, v);
    }, "add", "injective"));
    if (i + 1 < b.stages.size()) {
      x = node(clip6(x, "clip"));
      made.tile_stages.push_back(x);
    }
    made.inputs.push_back(kernel);
    made.inputs.push_back(bias);
  }
  made.output = x;
  return made;
}

}  // namespace tessel::ops
