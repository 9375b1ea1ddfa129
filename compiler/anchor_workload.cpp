// Graph anchors to operator workloads (compiler/anchor_workload.h).
#include "compiler/anchor_workload.h"

#include <algorithm>

#include "datasets/workloads.h"
#include "ops/block_workload.h"
#include "support/error.h"

namespace tessel {

namespace {

using graph::Ints;

// Channels of an NCHW ([N,C,H,W]) or blocked NCHWc ([N,C/b,H,W,b]) shape; 0 for another rank.
int64_t channels(const std::vector<int64_t>& shape) {
  if (shape.size() == 4) return shape[1];
  if (shape.size() == 5) return shape[1] * shape[4];
  return 0;
}

// Input channels per group of an OIHW or blocked OIHWio weight; 0 for another rank.
int64_t weight_in_channels(const std::vector<int64_t>& shape) {
  if (shape.size() == 4) return shape[1];
  if (shape.size() == 6) return shape[1] * shape[4];
  return 0;
}

bool all_equal(const Ints& v, int64_t value) {
  for (int64_t x : v)
    if (x != value) return false;
  return true;
}

// "conv2d:..." or "depthwise:..." for a convolution node the specs can express, else "".
std::string conv_workload(const graph::Graph& g, const graph::Node& node) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return "";
  const std::vector<int64_t>& data = g.value(node.inputs[0]).type.shape;
  const std::vector<int64_t>& weight = g.value(node.inputs[1]).type.shape;
  int64_t c = channels(data), oc = channels(g.value(node.outputs[0]).type.shape);
  int64_t per_group = weight_in_channels(weight);
  if (c == 0 || oc == 0 || per_group == 0) return "";
  Ints strides = node.attrs.ints("strides", {1, 1}), pads = node.attrs.ints("pads", {0, 0, 0, 0});
  int64_t groups = node.attrs.get_int("groups", 1);
  int64_t k = weight[2];
  if (weight[3] != k || strides.size() != 2 || strides[0] != strides[1] || pads.empty() ||
      !all_equal(pads, pads[0]) || !all_equal(node.attrs.ints("dilations", {1, 1}), 1))
    return "";
  std::string nchw = std::to_string(data[0]) + "," + std::to_string(c) + "," + std::to_string(data[2]) + "," +
                     std::to_string(data[3]) + ",";
  std::string window = std::to_string(k) + "," + std::to_string(strides[0]) + "," + std::to_string(pads[0]);
  // The layout pass's depthwise_conv2d_nchwc says what it is by its name, not by a groups attribute.
  bool depthwise = node.op.rfind("depthwise_conv2d", 0) == 0 || (groups > 1 && groups == c);
  // A blocked depthwise convolution runs in its producer's block: the block is part of its workload.
  std::string block = data.size() == 5 ? "," + std::to_string(data[4]) : "";
  if (depthwise) return oc == c && per_group == 1 ? "depthwise:" + nchw + window + block : "";
  if (groups != 1 || per_group != c) return "";
  // The layout pass computes some 1x1 layers over their pixels (ops/conv2d_pixels.h): an operator
  // of its own, whose template knows that schedule.
  if (node.attrs.get_int("pixel_tiles", 0) && k == 1 && strides[0] == 1 && pads[0] == 0)
    return "pixels:" + nchw + std::to_string(oc);
  return "conv2d:" + nchw + std::to_string(oc) + "," + window;
  return "";
}

// "gemm:M,N,K" for a dense node X[M,K]·W[N,K]ᵀ, or a dense_packed one (W in panels [N/bn,K,bn],
// attribute units = N), else "".
std::string dense_workload(const graph::Graph& g, const graph::Node& node) {
  if (node.inputs.size() != 2) return "";
  const std::vector<int64_t>& x = g.value(node.inputs[0]).type.shape;
  const std::vector<int64_t>& w = g.value(node.inputs[1]).type.shape;
  bool packed = node.op == "dense_packed";
  if (x.size() != 2 || w.size() != (packed ? 3u : 2u) || x[1] != w[1]) return "";
  int64_t n = packed ? node.attrs.get_int("units") : w[0];
  return "gemm:" + std::to_string(x[0]) + "," + std::to_string(n) + "," + std::to_string(x[1]);
}

// "winograd:N,C,H,W,OC,P,M" for a conv2d_winograd_nchwc node (symmetric padding), else "".
std::string winograd_workload(const graph::Graph& g, const graph::Node& node) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return "";
  const std::vector<int64_t>& data = g.value(node.inputs[0]).type.shape;
  int64_t c = channels(data), oc = channels(g.value(node.outputs[0]).type.shape);
  Ints pads = node.attrs.ints("pads", {0, 0, 0, 0});
  if (c == 0 || oc == 0 || pads.empty() || !all_equal(pads, pads[0])) return "";
  return "winograd:" + std::to_string(data[0]) + "," + std::to_string(c) + "," + std::to_string(data[2]) + "," +
         std::to_string(data[3]) + "," + std::to_string(oc) + "," + std::to_string(pads[0]) + "," +
         std::to_string(node.attrs.get_int("tile", 2));
}

bool is_convolution(const std::string& op) {
  bool conv = op.rfind("conv2d", 0) == 0 || op.rfind("depthwise_conv2d", 0) == 0;
  return conv && op.find("transpose") == std::string::npos;
}

// The value `node` reads as data from outside `group`: its input, back through the group's layout
// transforms.
graph::ValueId block_input(const graph::Graph& g, const graph::FusedGroup& group, const graph::Node& node) {
  graph::ValueId v = node.inputs.at(0);
  for (;;) {
    graph::NodeId p = g.value(v).producer;
    bool inside = std::find(group.nodes.begin(), group.nodes.end(), p) != group.nodes.end();
    if (!inside || g.node(p).op != "layout_transform") return v;
    v = g.node(p).inputs.at(0);
  }
}

// "block:..." for a fused block whose every convolution has a workload, else "".
std::string block_workload(const graph::Graph& g, const graph::FusedGroup& group) {
  ops::BlockShape block;
  for (graph::NodeId n : group.nodes) {
    const graph::Node& node = g.node(n);
    if (!is_convolution(node.op)) continue;
    std::string conv = conv_workload(g, node);
    if (conv.empty()) return "";
    search::WorkloadSpec w = search::parse_workload(conv);
    if (block.stages.empty()) {
      const std::vector<int64_t>& in = g.value(block_input(g, group, node)).type.shape;
      if (in.size() != 4 && in.size() != 5) return "";
      block.n = in[0];
      block.c = channels(in);
      block.h = in[2];
      block.w = in[3];
      block.in_block = in.size() == 5 ? in[4] : 0;
    }
    if (const auto* d = w.shape_if<DepthwiseShape>()) {
      block.stages.push_back({true, d->k, d->stride, d->pad, 0});
    } else {
      const Conv2dShape& c = w.shape<Conv2dShape>();
      block.stages.push_back({false, c.kh, c.stride, c.pad, c.oc});
    }
  }
  block.shares = g.node(group.anchor).attrs.get_int("channel_shares", 1);
  return "block:" + ops::block_shape_text(block);
}

}  // namespace

std::optional<search::WorkloadSpec> group_workload(const graph::Graph& g, const graph::FusedGroup& group) {
  if (group.tile_values.empty()) return anchor_workload(g, group.anchor);
  try {
    std::string name = block_workload(g, group);
    if (!name.empty()) return search::parse_workload(name);
  } catch (const UserError&) {  // a chain the block operator does not take
  }
  return std::nullopt;
}

std::optional<search::WorkloadSpec> anchor_workload(const graph::Graph& g, graph::NodeId anchor) {
  if (anchor < 0) return std::nullopt;
  const graph::Node& node = g.node(anchor);
  if (g.value(node.inputs.at(0)).type.dtype != DataType::float32()) return std::nullopt;
  try {
    std::string name = node.op == "dense" || node.op == "dense_packed" ? dense_workload(g, node)
                       : node.op == "conv2d_winograd_nchwc"       ? winograd_workload(g, node)
                       : is_convolution(node.op)                  ? conv_workload(g, node)
                                                                  : "";
    if (!name.empty()) return search::parse_workload(name);
  } catch (const UserError&) {  // attributes of another type, or a shape the operator's bounds refuse
  }
  return std::nullopt;
}

}  // namespace tessel
