// The layout pass (passes/graph/alter_layout.cpp) on small graphs built here: its exact effect
// (which operators become blocked, where layout_transform nodes sit: none between two blocked
// operators, one before the first convolution even with 3 input channels, one where an operator
// needs NCHW or at an output) for the AVX2 target, whose blocks are known, and outputs unchanged
// (the unfused executor before and after). The exported models run with it in
// fused_executor_test.cpp and models_passes_test.cpp, against PyTorch's outputs.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "ops/graph/unfused_executor.h"
#include "passes/graph/graph_pass.h"
#include "support/registry.h"
#include "tests/graph/graph_builder_util.h"
#include "tests/frontends/compare_arrays.h"
#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::graph;

namespace {

TensorType f32(std::vector<int64_t> shape) { return test::f32(std::move(shape), "NCHW"); }

ValueId weight(Graph& g, const std::string& name, std::vector<int64_t> shape, uint64_t seed) {
  return test::random_constant(g, name, std::move(shape), seed);
}

// 8 floats per vector: output blocks of 16 where they divide the channels, else 8.
Target avx2() { return Target::parse("llvm_cpu -isa=avx2"); }

std::map<std::string, int> op_counts(const Graph& g) {
  std::map<std::string, int> counts;
  for (NodeId n : g.nodes())
    if (g.node(n).is_operator()) ++counts[g.node(n).op];
  return counts;
}

// The layout_transform nodes as "src->dst".
std::vector<std::string> transforms(const Graph& g) {
  std::vector<std::string> out;
  for (NodeId n : g.topological_order())
    if (g.node(n).op == "layout_transform")
      out.push_back(g.node(n).attrs.get_string("src_layout") + "->" + g.node(n).attrs.get_string("dst_layout"));
  return out;
}

// The optimized graph's output equals the original's on the same random inputs, and keeps its name.
void check_same_output(const Graph& before, const Graph& after, double rtol = 1e-5, double atol = 1e-5) {
  std::map<std::string, NDArray> in;
  for (ValueId v : before.inputs())
    in[before.value(v).name] = NDArray::random_uniform(before.value(v).type.shape, DataType::float32(), 5 + v, -1, 1);
  std::vector<NDArray> expected = ops::UnfusedExecutor(before).run(in), out = ops::UnfusedExecutor(after).run(in);
  REQUIRE(out.size() == expected.size());
  for (size_t i = 0; i < out.size(); ++i) {
    test::Closeness c = test::compare_arrays(out[i], expected[i], rtol, atol);
    INFO("output " << i << ": max abs diff " << c.max_abs << " " << c.problem);
    CHECK(c.close);
    CHECK(before.value(before.outputs()[i]).name == after.value(after.outputs()[i]).name);
  }
}

// conv (3 input channels) + bias + relu, conv + residual add + relu, max pool, a per-channel
// scale, global average pool, then flatten and a dense layer: everything up to the flatten
// blocked, the dense layer's weight packed.
Graph residual_net() {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 3, 16, 16}));
  Attributes same{{"pads", Ints{1, 1, 1, 1}}};
  ValueId c1 = g.add_op("conv2d", {x, weight(g, "w1", {16, 3, 3, 3}, 1)}, same);
  ValueId y1 = g.add_op("relu", {g.add_op("bias_add", {c1, weight(g, "b1", {16}, 2)}, {{"axis", int64_t{1}}})});
  ValueId c2 = g.add_op("conv2d", {y1, weight(g, "w2", {16, 16, 3, 3}, 3)}, same);
  ValueId y2 = g.add_op("relu", {g.add_op("add", {c2, y1})});
  ValueId p = g.add_op("max_pool2d", {y2}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}});
  ValueId scaled = g.add_op("mul", {p, weight(g, "scale", {16, 1, 1}, 4)});
  ValueId mean = g.add_op("global_avg_pool2d", {scaled});
  ValueId flat = g.add_op("reshape", {mean}, {{"shape", Ints{1, 16}}});
  g.add_output(g.add_op("dense", {flat, weight(g, "fc", {16, 16}, 5)}, {}, "", "logits"));
  return g;
}

}  // namespace

TEST_CASE("layout: convolutions, element-wise ops and pools blocked, transforms only at the ends, dense packed", "[graph][layout]") {
  Graph g = residual_net();
  OptimizedGraph opt = optimize_graph(g, {"layout{conv_input_block=producer}"}, avx2());
  std::map<std::string, int> ops = op_counts(opt.graph);
  CHECK(ops["conv2d_nchwc"] == 2);
  CHECK(ops.count("conv2d") == 0);
  CHECK(ops.count("bias_add") == 0);  // a blocked add of the re-laid-out bias
  CHECK(ops["add"] == 2);
  CHECK(ops["dense_packed"] == 1);
  // The RGB input in blocks of its 3 channels; back to NCHW only for the flatten.
  CHECK(transforms(opt.graph) == std::vector<std::string>{"NCHW->NCHW3c", "NCHW16c->NCHW"});
  for (NodeId n : opt.graph.nodes()) {
    const graph::Node& node = opt.graph.node(n);
    if (node.op == "layout_transform" && node.attrs.get_string("dst_layout") == "NCHW")
      CHECK(opt.graph.node(opt.graph.users(node.outputs[0]).at(0).node).op == "reshape");
    if (node.op == "max_pool2d" || node.op == "global_avg_pool2d" || node.op == "mul")
      CHECK(opt.graph.value(node.outputs[0]).type.layout == "NCHW16c");
  }
  for (NodeId n : opt.graph.nodes()) {
    if (opt.graph.node(n).op != "conv2d_nchwc") continue;
    ValueId w = opt.graph.node(n).inputs[1];
    CHECK(opt.graph.constant_value(w) != nullptr);  // weights re-laid out at compile time
    CHECK(opt.graph.value(w).type.ndim() == 6);
  }
  check_same_output(g, opt.graph);
  CHECK(opt.report.at(0).find("blocked 2 convolutions") != std::string::npos);
}

TEST_CASE("layout: by default the operator-level blocks, with a transform between convolutions", "[graph][layout]") {
  Graph g = residual_net();
  OptimizedGraph opt = optimize_graph(g, {"layout"}, avx2());
  // The second convolution reads 16 channels in blocks of 8, as conv2d_instance lays them out.
  CHECK(transforms(opt.graph) == std::vector<std::string>{"NCHW->NCHW3c", "NCHW16c->NCHW8c", "NCHW16c->NCHW"});
  check_same_output(g, opt.graph);
}

TEST_CASE("layout: 3x3 stride-1 convolutions of 64 channels or more by Winograd, weights transformed once",
          "[graph][layout][winograd]") {
  Graph g;
  // Weights scaled by 1/sqrt(fan-in) as a trained network's are, so outputs stay near 1 and the
  // models' tolerance applies (1e-4 relative, 1e-5 absolute).
  auto w = [&](const std::string& name, int64_t in, uint64_t seed) {
    double bound = 1.0 / std::sqrt(double(in * 9));
    return g.add_constant(name, NDArray::random_uniform({64, in, 3, 3}, DataType::float32(), seed, -bound, bound));
  };
  ValueId x = g.add_input("x", f32({1, 8, 28, 28}));
  Attributes same{{"pads", Ints{1, 1, 1, 1}}};
  ValueId c1 = g.add_op("relu", {g.add_op("conv2d", {x, w("w1", 8, 1)}, same)});
  ValueId c2 = g.add_op("relu", {g.add_op("conv2d", {c1, w("w2", 64, 2)}, same)});
  ValueId c3 = g.add_op("conv2d", {c2, w("w3", 64, 3)}, {{"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}});
  g.add_output(g.add_op("conv2d", {c3, w("w4", 64, 4)}, same, "", "y"));
  OptimizedGraph opt = optimize_graph(g, {"layout"}, avx2());
  std::map<std::string, int> ops = op_counts(opt.graph);
  // 8 input channels and stride 2 stay direct; 28x28 makes 49 tiles of 4x4, 14x14 49 tiles of 2x2.
  CHECK(ops["conv2d_nchwc"] == 2);
  CHECK(ops["conv2d_winograd_nchwc"] == 2);
  std::vector<int64_t> tiles;
  for (NodeId n : opt.graph.topological_order()) {
    const graph::Node& node = opt.graph.node(n);
    if (node.op != "conv2d_winograd_nchwc") continue;
    tiles.push_back(node.attrs.get_int("tile"));
    int64_t alpha = tiles.back() + 2;
    const NDArray* u = opt.graph.constant_value(node.inputs[1]);
    REQUIRE(u != nullptr);
    CHECK(u->shape() == std::vector<int64_t>{alpha, alpha, 4, 64, 16});
  }
  CHECK(tiles == std::vector<int64_t>{4, 2});
  // The Winograd convolutions read their producers' blocks; the direct stride-2 one its own.
  CHECK(transforms(opt.graph) == std::vector<std::string>{"NCHW->NCHW8c", "NCHW16c->NCHW8c", "NCHW16c->NCHW"});
  check_same_output(g, opt.graph, 1e-4, 1e-5);
  CHECK(opt.report.at(0).find("blocked 4 convolutions (2 by Winograd)") != std::string::npos);
  OptimizedGraph direct = optimize_graph(g, {"layout{winograd=false}"}, avx2());
  CHECK(op_counts(direct.graph).count("conv2d_winograd_nchwc") == 0);
}

TEST_CASE("layout: 1x1 convolutions at 7x7 over their flattened pixels on 16 registers", "[graph][layout]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 32, 7, 7}));
  ValueId c1 = g.add_op("relu", {g.add_op("conv2d", {x, weight(g, "w1", {64, 32, 1, 1}, 1)})});
  ValueId c2 = g.add_op("conv2d", {c1, weight(g, "w2", {32, 64, 3, 3}, 2)}, {{"pads", Ints{1, 1, 1, 1}}});
  g.add_output(g.add_op("conv2d", {c2, weight(g, "w3", {16, 32, 1, 1}, 3)}, {}, "", "y"));
  auto marked = [](const Graph& opt) {
    int count = 0;
    for (NodeId n : opt.nodes())
      count += opt.node(n).op == "conv2d_nchwc" && opt.node(n).attrs.get_int("pixel_tiles", 0) != 0;
    return count;
  };
  OptimizedGraph opt = optimize_graph(g, {"layout"}, avx2());
  CHECK(marked(opt.graph) == 2);  // the two 1x1 convolutions, not the 3x3 one
  check_same_output(g, opt.graph, 1e-4, 1e-5);  // unscaled weights: outputs in the tens
  CHECK(marked(optimize_graph(g, {"layout{pixel_tiles=false}"}, avx2()).graph) == 0);
  CHECK(marked(optimize_graph(g, {"layout"}, Target::parse("llvm_cpu -isa=avx512")).graph) == 0);
}

TEST_CASE("layout: depthwise convolutions, narrow blocks, a blocked graph output", "[graph][layout]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 8, 10, 10}));
  ValueId e = g.add_op("clip", {g.add_op("conv2d", {x, weight(g, "expand", {24, 8, 1, 1}, 1)})},
                       {{"min", 0.0}, {"max", 6.0}});
  ValueId d = g.add_op("conv2d", {e, weight(g, "dw", {24, 1, 3, 3}, 2)},
                       {{"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}, {"groups", int64_t{24}}});
  g.add_output(g.add_op("conv2d", {d, weight(g, "project", {8, 24, 1, 1}, 3)}, {}, "", "y"));
  OptimizedGraph opt = optimize_graph(g, {"layout"}, avx2());
  std::map<std::string, int> ops = op_counts(opt.graph);
  CHECK(ops["conv2d_nchwc"] == 2);
  CHECK(ops["depthwise_conv2d_nchwc"] == 1);
  // 24 channels: blocks of 8 throughout (16 does not divide them), so no transform inside.
  CHECK(transforms(opt.graph) == std::vector<std::string>{"NCHW->NCHW8c", "NCHW8c->NCHW"});
  const Value& out = opt.graph.value(opt.graph.outputs()[0]);
  CHECK(out.name == "y");
  CHECK(opt.graph.node(out.producer).op == "layout_transform");
  check_same_output(g, opt.graph);
}

TEST_CASE("layout: operators without a blocked form read NCHW; asymmetric padding", "[graph][layout]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 8, 6, 6}));
  ValueId c1 = g.add_op("conv2d", {x, weight(g, "w1", {8, 8, 3, 3}, 1)}, {{"pads", Ints{1, 1, 1, 1}}});
  // Two groups of 4 channels: neither a plain nor a depthwise convolution, so it stays NCHW.
  ValueId grouped = g.add_op("relu", {g.add_op("conv2d", {c1, weight(g, "w2", {8, 4, 3, 3}, 2)},
                                               {{"pads", Ints{1, 1, 1, 1}}, {"groups", int64_t{2}}})});
  ValueId c3 = g.add_op("conv2d", {grouped, weight(g, "w3", {16, 8, 2, 2}, 3)}, {{"pads", Ints{0, 1, 1, 0}}});
  ValueId bn = g.add_op("batch_norm", {c3, weight(g, "gamma", {16}, 4), weight(g, "beta", {16}, 5),
                                       weight(g, "mean", {16}, 6), weight(g, "var", {16}, 7)});
  g.add_output(g.add_op("sigmoid", {bn}));
  OptimizedGraph opt = optimize_graph(g, {"layout"}, avx2());
  std::map<std::string, int> ops = op_counts(opt.graph);
  CHECK(ops["conv2d_nchwc"] == 2);
  CHECK(ops["conv2d"] == 1);
  CHECK(ops["relu"] == 1);
  CHECK(transforms(opt.graph) ==
        std::vector<std::string>{"NCHW->NCHW8c", "NCHW8c->NCHW", "NCHW->NCHW8c", "NCHW16c->NCHW"});
  check_same_output(g, opt.graph);
  // Switched off, nothing changes.
  CHECK(op_counts(optimize_graph(g, parse_pipeline("-layout")).graph).count("conv2d_nchwc") == 0);
}

TEST_CASE("layout_transform: layouts it does not convert are user errors", "[graph][layout]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 8, 4, 4}));
  test::require_user_error([&] { g.add_op("layout_transform", {x}, {{"src_layout", "NCHW"}, {"dst_layout", "NHWC"}}); },
                           {"NHWC", "NCHW<block>c"});
  test::require_user_error([&] { g.add_op("layout_transform", {x}, {{"src_layout", "NCHW"}, {"dst_layout", "NCHW3c"}}); },
                           {"block 3", "8"});
  test::require_user_error(
      [&] { g.add_op("layout_transform", {x}, {{"src_layout", "NCHW8c"}, {"dst_layout", "NCHW"}}); }, {"4-D", "5-D"});
}

TEST_CASE("layout: a dense layer at batch 1 packs its weights in panels of four vectors, the last zero-padded",
          "[graph][layout]") {
  // AVX2: 8 floats per vector. At batch 1 the register tile is one row, so the panel is 32 wide
  // (four accumulators); 20 outputs fill one panel and 12 zero columns. Three rows keep the
  // panel that divides the outputs (4).
  for (int64_t rows : {1, 3}) {
    Graph g;
    ValueId x = g.add_input("x", test::f32({rows, 12}));
    g.add_output(g.add_op("dense", {x, weight(g, "w", {20, 12}, 1)}));
    OptimizedGraph opt = optimize_graph(g, {"layout"}, avx2());
    std::vector<int64_t> panels;
    for (NodeId n : opt.graph.nodes())
      if (opt.graph.node(n).op == "dense_packed") panels = opt.graph.value(opt.graph.node(n).inputs[1]).type.shape;
    CHECK(panels == (rows == 1 ? std::vector<int64_t>{1, 12, 32} : std::vector<int64_t>{5, 12, 4}));
    check_same_output(g, opt.graph);
  }
}
