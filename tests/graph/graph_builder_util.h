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

// MobileNet-V2's inverted residual, `in` -> `expanded` -> `in` channels on a `size`x`size` input
// (by default small): 1x1 expansion, depthwise 3x3 (stride `stride`), 1x1 projection, each with a
// bias and (but the projection) a clip to [0, 6]; with stride 1, the residual add.
inline graph::Graph inverted_residual(int64_t stride, int64_t in = 8, int64_t expanded = 32, int64_t size = 12) {
  using graph::ValueId;
  graph::Graph g;
  ValueId x = g.add_input("x", f32({1, in, size, size}, "NCHW"));
  graph::Attributes relu6{{"min", 0.0}, {"max", 6.0}};
  auto bias = [&](ValueId v, int64_t channels, uint64_t seed) {
    return g.add_op("bias_add", {v, random_constant(g, "b" + std::to_string(seed), {channels}, seed)},
                    {{"axis", int64_t{1}}});
  };
  ValueId e = g.add_op(
      "clip", {bias(g.add_op("conv2d", {x, random_constant(g, "we", {expanded, in, 1, 1}, 1)}), expanded, 2)}, relu6);
  graph::Attributes dw{
      {"pads", graph::Ints{1, 1, 1, 1}}, {"groups", expanded}, {"strides", graph::Ints{stride, stride}}};
  ValueId dc = g.add_op("conv2d", {e, random_constant(g, "wd", {expanded, 1, 3, 3}, 3)}, dw);
  ValueId d = g.add_op("clip", {bias(dc, expanded, 4)}, relu6);
  ValueId p = bias(g.add_op("conv2d", {d, random_constant(g, "wp", {in, expanded, 1, 1}, 5)}), in, 6);
  g.add_output(stride == 1 ? g.add_op("add", {p, x}) : p);
  return g;
}

}  // namespace tessel::test
