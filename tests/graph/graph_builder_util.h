// Small builders shared by the graph tests that assemble graphs by hand.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "ir/graph/graph.h"

namespace tessel::test {

// A float32 tensor type of `shape` in `layout` ("" when the layout does not matter).
inline graph::TensorType f32(std::vector<int64_t> shape, const std::string& layout = "") {
  return {std::move(shape), DataType::float32(), layout};
}

// A constant of uniform random values in [-1, 1) from `seed`.
inline graph::ValueId random_constant(graph::Graph& g, const std::string& name, std::vector<int64_t> shape, uint64_t seed) {
  return g.add_constant(name, NDArray::random_uniform(std::move(shape), DataType::float32(), seed, -1, 1));
}

// MobileNet-V2's inverted residual at a small size: 1x1 expansion, depthwise 3x3 (stride `stride`),
// 1x1 projection, each with a bias and (but the projection) a clip; with stride 1, the residual add.
inline graph::Graph inverted_residual(int64_t stride) {
  using graph::ValueId;
  graph::Graph g;
  ValueId x = g.add_input("x", f32({1, 8, 12, 12}, "NCHW"));
  graph::Attributes relu6{{"min", 0.0}, {"max", 6.0}};
  auto bias = [&](ValueId v, int64_t channels, uint64_t seed) {
    return g.add_op("bias_add", {v, random_constant(g, "b" + std::to_string(seed), {channels}, seed)},
                    {{"axis", int64_t{1}}});
  };
  ValueId e = g.add_op("clip", {bias(g.add_op("conv2d", {x, random_constant(g, "we", {32, 8, 1, 1}, 1)}), 32, 2)},
                       relu6);
  graph::Attributes dw{
      {"pads", graph::Ints{1, 1, 1, 1}}, {"groups", int64_t{32}}, {"strides", graph::Ints{stride, stride}}};
  ValueId dc = g.add_op("conv2d", {e, random_constant(g, "wd", {32, 1, 3, 3}, 3)}, dw);
  ValueId d = g.add_op("clip", {bias(dc, 32, 4)}, relu6);
  ValueId p = bias(g.add_op("conv2d", {d, random_constant(g, "wp", {8, 32, 1, 1}, 5)}), 8, 6);
  g.add_output(stride == 1 ? g.add_op("add", {p, x}) : p);
  return g;
}

}  // namespace tessel::test
