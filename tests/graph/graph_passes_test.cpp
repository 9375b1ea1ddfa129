// The graph passes (passes/graph/): each on small graphs built here, with its exact effect on the
// graph (which nodes remain, which groups form, which values share storage) and outputs unchanged
// (the unfused executor before and after); pipelines as the command line writes them.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include "ops/graph/unfused_executor.h"
#include "passes/graph/graph_pass.h"
#include "passes/graph/post_dominators.h"
#include "tests/frontends/compare_arrays.h"
#include "tests/graph/graph_builder_util.h"
#include "tests/graph/memory_plan_check.h"
#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::graph;

namespace {

TensorType f32(std::vector<int64_t> shape, std::string layout = "") {
  return {std::move(shape), DataType::float32(), std::move(layout)};
}

NDArray random(std::vector<int64_t> shape, uint64_t seed, double lo = -1, double hi = 1) {
  return NDArray::random_uniform(std::move(shape), DataType::float32(), seed, lo, hi);
}

// The operators of the live nodes, counted.
std::map<std::string, int> op_counts(const Graph& g) {
  std::map<std::string, int> counts;
  for (NodeId n : g.nodes())
    if (g.node(n).is_operator()) ++counts[g.node(n).op];
  return counts;
}

// The operators of each group, in order.
std::vector<std::vector<std::string>> group_ops(const OptimizedGraph& opt) {
  std::vector<std::vector<std::string>> out;
  for (const FusedGroup& group : fused_groups(opt)) {
    out.emplace_back();
    for (NodeId n : group.nodes) out.back().push_back(opt.graph.node(n).op);
  }
  return out;
}

// Random arrays for every graph input, the same for equal graphs.
std::map<std::string, NDArray> random_inputs(const Graph& g) {
  std::map<std::string, NDArray> inputs;
  for (ValueId v : g.inputs()) inputs[g.value(v).name] = random(g.value(v).type.shape, 7 + v);
  return inputs;
}

NDArray run_one(const Graph& g, const std::map<std::string, NDArray>& inputs) {
  return ops::UnfusedExecutor(g).run(inputs)[0];
}

// Runs `pipeline` on g and requires the output unchanged (within float rounding).
OptimizedGraph check_same_output(const Graph& g, const std::vector<std::string>& pipeline) {
  OptimizedGraph opt = optimize_graph(g, pipeline);
  std::map<std::string, NDArray> x = random_inputs(g);
  test::Closeness c = test::compare_arrays(run_one(opt.graph, x), run_one(g, x), 1e-5, 1e-5);
  INFO("max abs diff " << c.max_abs << " " << c.problem);
  CHECK(c.close);
  CHECK(g.value(g.outputs()[0]).name == opt.graph.value(opt.graph.outputs()[0]).name);
  return opt;
}

// x -> conv2d [-> bias_add] -> batch_norm -> relu, with non-trivial statistics.
Graph conv_bn_graph(bool conv_bias) {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 3, 9, 9}, "NCHW"));
  ValueId y = g.add_op("conv2d", {x, g.add_constant("w", random({4, 3, 3, 3}, 1))}, {{"pads", Ints{1, 1, 1, 1}}});
  if (conv_bias) y = g.add_op("bias_add", {y, g.add_constant("b", random({4}, 2))}, {{"axis", int64_t{1}}});
  std::vector<ValueId> bn{y};
  for (uint64_t i = 0; i < 4; ++i) bn.push_back(g.add_constant("bn" + std::to_string(i), random({4}, 10 + i, 0.5, 2)));
  g.add_output(g.add_op("relu", {g.add_op("batch_norm", bn, {{"epsilon", 1e-3}})}, {}, "", "out"));
  return g;
}

}  // namespace

TEST_CASE("graph passes: pipelines by name", "[graph][passes]") {
  CHECK(parse_pipeline("") == default_pipeline());
  CHECK(parse_pipeline("-fuse, -cse,-fuse_blocks,-prefetch_weights,-conv_transpose_phases,-matmul_as_dense") ==
        std::vector<std::string>{"fold_batch_norm", "fold_constants", "dce", "layout", "plan_memory"});
  CHECK(parse_pipeline("dce,fuse") == std::vector<std::string>{"dce", "fuse"});
  test::require_user_error([] { parse_pipeline("-fusion"); }, {"fusion", "fuse", "graph_pass"});
  test::require_user_error([] { parse_pipeline("dce,-fuse"); }, {"'-fuse'", "dce"});
  // Parameters in braces, commas inside them included; checked by the registry when parsed.
  CHECK(parse_pipeline("dce, layout{conv_input_block=producer,depthwise_block=operator} ,fuse") ==
        std::vector<std::string>{"dce", "layout{conv_input_block=producer,depthwise_block=operator}", "fuse"});
  PassEntry entry = parse_pass_entry("layout{conv_input_block=producer}");
  CHECK(entry.name == "layout");
  CHECK(entry.params == nlohmann::json{{"conv_input_block", "producer"}});
  CHECK(parse_pass_entry("fuse").params.is_null());
  test::require_user_error([] { parse_pipeline("layout{conv_input_block=sideways}"); }, {"conv_input_block", "producer"});
  test::require_user_error([] { parse_pipeline("layout{bogus=1}"); }, {"bogus", "conv_input_block"});
  test::require_user_error([] { parse_pipeline("layout{conv_input_block=producer"); }, {"not closed"});
  test::require_user_error([] { parse_pipeline("layout{x}"); }, {"name=value"});
  test::require_user_error([] { parse_pipeline("-layout{conv_input_block=producer}"); }, {"no parameters"});
  Graph broken;
  broken.add_input("x", f32({4}));
  test::require_user_error([&] { optimize_graph(broken); }, {"no output"});
}

TEST_CASE("fold_batch_norm: the normalization becomes the convolution's weight and a bias", "[graph][passes]") {
  for (bool conv_bias : {false, true}) {
    Graph g = conv_bn_graph(conv_bias);
    OptimizedGraph opt = check_same_output(g, {"fold_batch_norm", "dce"});
    CHECK(op_counts(opt.graph) == std::map<std::string, int>{{"bias_add", 1}, {"conv2d", 1}, {"relu", 1}});
    CHECK(opt.report[0].find("folded 1 batch norms") != std::string::npos);
  }
  // A convolution whose output is also read elsewhere keeps its normalization.
  Graph g = conv_bn_graph(false);
  NodeId bn = g.users(g.find_value("bn0").value())[0].node;
  g.add_output(g.add_op("sigmoid", {g.node(bn).inputs[0]}));
  CHECK(op_counts(optimize_graph(g, {"fold_batch_norm", "dce"}).graph).at("batch_norm") == 1);
}

TEST_CASE("fold_batch_norm: a transposed convolution's normalization folds too, per group", "[graph][passes]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 4, 5, 5}, "NCHW"));
  Attributes attrs{{"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"groups", int64_t{2}}};
  ValueId y = g.add_op("conv2d_transpose", {x, g.add_constant("w", random({4, 3, 4, 4}, 1))}, attrs);  // 6 outputs
  std::vector<ValueId> bn{y};
  for (uint64_t i = 0; i < 4; ++i) bn.push_back(g.add_constant("bn" + std::to_string(i), random({6}, 10 + i, 0.5, 2)));
  g.add_output(g.add_op("batch_norm", bn));
  OptimizedGraph opt = check_same_output(g, {"fold_batch_norm", "dce"});
  CHECK(op_counts(opt.graph) == std::map<std::string, int>{{"bias_add", 1}, {"conv2d_transpose", 1}});
}

namespace {

// x [1, C, H, W] -> conv2d_transpose with a random constant weight.
Graph conv_transpose_graph(int64_t channels, int64_t h, int64_t w, int64_t outputs, int64_t kernel,
                           const Attributes& attrs) {
  Graph g;
  ValueId x = g.add_input("x", f32({1, channels, h, w}, "NCHW"));
  int64_t groups = attrs.get_int("groups", 1);
  ValueId k = g.add_constant("w", random({channels, outputs / groups, kernel, kernel}, 3));
  g.add_output(g.add_op("relu", {g.add_op("conv2d_transpose", {x, k}, attrs)}, {}, "", "out"));
  return g;
}

}  // namespace

TEST_CASE("conv_transpose_phases: one convolution per output phase, the same output", "[graph][passes]") {
  struct Case {
    int64_t h, w, kernel, stride;
    Ints pads, output_padding;
    int64_t groups, convolutions;  // the phase convolutions it becomes (0: kept)
  };
  std::vector<Case> cases = {
      {4, 4, 4, 2, {1, 1, 1, 1}, {0, 0}, 1, 4},  // DCGAN's layers: four 2x2 convolutions
      {5, 3, 3, 2, {1, 1, 1, 1}, {1, 1}, 1, 4},  // phases of 2 and 1 taps; output_padding evens the output
      {3, 4, 5, 3, {1, 0, 1, 2}, {0, 0}, 1, 9},  // stride 3, asymmetric padding and phases
      {4, 4, 3, 1, {1, 1, 1, 1}, {0, 0}, 1, 1},  // stride 1: one convolution, no interleaving
      {4, 4, 4, 2, {1, 1, 1, 1}, {0, 0}, 2, 4},  // grouped
      {4, 4, 1, 2, {0, 0, 0, 0}, {1, 1}, 1, 0},  // kernel 1, stride 2: phases without taps, kept
      {5, 5, 3, 2, {1, 1, 1, 1}, {0, 0}, 1, 0},  // 9x9 output: not divisible by the stride, kept
      {2, 2, 9, 9, {0, 0, 0, 0}, {0, 0}, 1, 0},  // 81 phases, more than the 64 worth kernels: kept
  };
  for (const Case& c : cases) {
    Attributes attrs{{"strides", Ints{c.stride, c.stride}}, {"pads", c.pads}, {"output_padding", c.output_padding},
                     {"groups", c.groups}};
    Graph g = conv_transpose_graph(4, c.h, c.w, 6, c.kernel, attrs);
    INFO("kernel " << c.kernel << ", stride " << c.stride << ", groups " << c.groups << ", " << c.h << "x" << c.w);
    OptimizedGraph opt = check_same_output(g, {"conv_transpose_phases", "dce"});
    std::map<std::string, int> ops = op_counts(opt.graph);
    CHECK(ops["conv2d"] == c.convolutions);
    CHECK(ops["conv2d_transpose"] == (c.convolutions ? 0 : 1));
    CHECK(ops["interleave"] == (c.convolutions > 1 ? 1 : 0));
  }
  // Dilation is kept.
  Graph dilated = conv_transpose_graph(4, 4, 4, 6, 3, {{"strides", Ints{2, 2}}, {"dilations", Ints{2, 2}}});
  CHECK(op_counts(check_same_output(dilated, {"conv_transpose_phases", "dce"}).graph)["conv2d_transpose"] == 1);
}

TEST_CASE("conv_transpose_phases: a 1x1 input without padding becomes a dense layer", "[graph][passes]") {
  Graph g = conv_transpose_graph(8, 1, 1, 5, 4, {{"strides", Ints{2, 2}}});
  OptimizedGraph opt = check_same_output(g, {"conv_transpose_phases", "dce"});
  CHECK(op_counts(opt.graph) == std::map<std::string, int>{{"dense", 1}, {"relu", 1}, {"reshape", 2}});
  // The output keeps its type (NCHW) and name.
  CHECK(opt.graph.value(opt.graph.outputs()[0]).type.layout == "NCHW");
  // With padding it is a convolution of the padded 1x1 input instead.
  Graph padded = conv_transpose_graph(8, 1, 1, 5, 4, {{"pads", Ints{1, 1, 1, 1}}});
  CHECK(op_counts(check_same_output(padded, {"conv_transpose_phases", "dce"}).graph)["conv2d"] == 1);
}

TEST_CASE("matmul_as_dense: a product with a constant matrix is one dense layer over all rows", "[graph][passes]") {
  Graph g;
  ValueId x = g.add_input("x", f32({3, 2, 6}));
  ValueId y = g.add_op("matmul", {x, g.add_constant("b", random({6, 5}, 1))});          // [3, 2, 5]
  ValueId z = g.add_op("matmul", {g.add_input("a", f32({4, 3})), g.add_constant("c", random({3, 10}, 2))});
  ValueId both = g.add_op("matmul", {x, g.add_input("v", f32({6, 10}))});  // B not constant: kept
  g.add_output(g.add_op("sigmoid", {y}));
  g.add_output(z);
  g.add_output(both);
  OptimizedGraph opt = optimize_graph(g, {"matmul_as_dense", "dce"});
  // Rows flattened (3 x 2 -> 6) and the result reshaped back; a 2-D A needs neither.
  CHECK(op_counts(opt.graph) ==
        std::map<std::string, int>{{"dense", 2}, {"matmul", 1}, {"reshape", 2}, {"sigmoid", 1}});
  std::map<std::string, NDArray> in = random_inputs(g);
  std::vector<NDArray> before = ops::UnfusedExecutor(g).run(in), after = ops::UnfusedExecutor(opt.graph).run(in);
  for (size_t i = 0; i < before.size(); ++i) CHECK(test::compare_arrays(after[i], before[i], 1e-5, 1e-5).close);
}

TEST_CASE("fold_constants: operators on constants become constants", "[graph][passes]") {
  Graph g;
  ValueId x = g.add_input("x", f32({2, 6}));
  ValueId wt = g.add_op("transpose", {g.add_constant("w", random({6, 5}, 3))}, {{"perm", Ints{1, 0}}});
  ValueId scaled = g.add_op("mul", {wt, g.add_constant("two", NDArray::from_vector<float>({}, {2.0f}))});
  g.add_output(g.add_op("dense", {x, scaled}));
  OptimizedGraph opt = check_same_output(g, {"fold_constants", "dce"});
  CHECK(op_counts(opt.graph) == std::map<std::string, int>{{"dense", 1}});
  CHECK(opt.report[0].find("folded 2 operators") != std::string::npos);
}

TEST_CASE("cse and dce: duplicates merged, unused nodes removed", "[graph][passes]") {
  Graph g;
  ValueId x = g.add_input("x", f32({3, 4}));
  g.add_input("unused", f32({2}));
  ValueId c1 = g.add_constant("c1", NDArray::from_vector<float>({4}, {1, 2, 3, 4}));
  ValueId c2 = g.add_constant("c2", NDArray::from_vector<float>({4}, {1, 2, 3, 4}));
  ValueId c3 = g.add_constant("c3", NDArray::from_vector<float>({4}, {1, 2, 3, 5}));
  ValueId a = g.add_op("sigmoid", {g.add_op("add", {x, c1})});
  ValueId b = g.add_op("sigmoid", {g.add_op("add", {x, c2})});  // the same chain again
  ValueId c = g.add_op("add", {x, c3});                        // differs in one constant
  g.add_op("exp", {x});                                         // read by nothing
  g.add_output(g.add_op("add", {g.add_op("mul", {a, b}), c}));
  OptimizedGraph opt = check_same_output(g, {"cse", "dce"});
  CHECK(op_counts(opt.graph) == std::map<std::string, int>{{"add", 3}, {"mul", 1}, {"sigmoid", 1}});
  CHECK(opt.report[0].find("merged 3 duplicate") != std::string::npos);  // c2, add, sigmoid
  CHECK(opt.graph.inputs().size() == 2);                                  // inputs are the interface
  CHECK_FALSE(opt.graph.find_value("c2"));
}

TEST_CASE("post-dominators: the nearest node every path to the end passes", "[graph][passes]") {
  Graph g;
  ValueId x = g.add_input("x", f32({4}));
  ValueId r = g.add_op("relu", {x});
  ValueId s = g.add_op("sigmoid", {r});
  ValueId t = g.add_op("tanh", {r});
  ValueId sum = g.add_op("add", {s, t});
  ValueId e = g.add_op("exp", {sum});
  g.add_output(e);
  g.add_output(sum);
  PostDominators pd(g);
  auto node = [&](ValueId v) { return g.value(v).producer; };
  CHECK(pd.immediate(node(r)) == node(sum));
  CHECK(pd.immediate(node(s)) == node(sum));
  CHECK(pd.immediate(node(sum)) == PostDominators::kExit);  // read by exp and the graph's end
  CHECK(pd.immediate(node(e)) == PostDominators::kExit);
}

TEST_CASE("fuse: groups by op pattern", "[graph][passes]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 4, 8, 8}, "NCHW"));
  ValueId w = g.add_constant("w", random({4, 4, 3, 3}, 1));
  ValueId b = g.add_constant("b", random({4}, 2));
  Attributes same{{"pads", Ints{1, 1, 1, 1}}};
  // conv + bias + relu: one anchor group.
  ValueId y = g.add_op("relu", {g.add_op("bias_add", {g.add_op("conv2d", {x, w}, same), b}, {{"axis", int64_t{1}}})});
  // A residual block: conv whose consumers branch and meet in an add.
  ValueId c = g.add_op("conv2d", {y, w}, same);
  ValueId branch = g.add_op("add", {g.add_op("sigmoid", {c}), g.add_op("mul", {c, c})});
  ValueId res = g.add_op("relu", {g.add_op("add", {branch, y})});
  // A pooling (an anchor) whose reader is a reduction: two kernels.
  ValueId pooled = g.add_op("max_pool2d", {res}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}});
  ValueId mean = g.add_op("global_avg_pool2d", {pooled});
  // Opaque softmax after a dense layer with its bias.
  ValueId flat = g.add_op("reshape", {mean}, {{"shape", Ints{1, 4}}});
  ValueId logits = g.add_op("add", {g.add_op("dense", {flat, g.add_constant("fc", random({3, 4}, 3))}),
                                    g.add_constant("fcb", random({3}, 4))});
  g.add_output(g.add_op("softmax", {logits}, {{"axis", int64_t{1}}}));
  OptimizedGraph opt = check_same_output(g, {"fuse"});
  using Ops = std::vector<std::string>;
  CHECK(group_ops(opt) == std::vector<Ops>{{"conv2d", "bias_add", "relu"},
                                           {"conv2d", "sigmoid", "mul", "add", "add", "relu"},
                                           {"max_pool2d"},
                                           {"global_avg_pool2d"},
                                           {"reshape"},
                                           {"dense", "add"},
                                           {"softmax"}});
  std::vector<FusedGroup> groups = fused_groups(opt);
  CHECK(opt.graph.node(groups[0].anchor).op == "conv2d");
  CHECK(groups[0].outputs == std::vector<ValueId>{y});
  CHECK(groups[1].inputs.size() == 2);  // y and w
  CHECK(groups[3].pattern == OpPattern::Reduction);
  CHECK(groups[6].pattern == OpPattern::Opaque);
  // Switched off, every operator is its own kernel.
  CHECK(fused_groups(optimize_graph(g, {})).size() == 15);
}

TEST_CASE("fuse: an element-wise chain joins the reduction it feeds", "[graph][passes]") {
  Graph g;
  ValueId x = g.add_input("x", f32({2, 3, 4}));
  ValueId e = g.add_op("exp", {g.add_op("neg", {x})});
  g.add_output(g.add_op("sigmoid", {g.add_op("reduce_sum", {e}, {{"axes", Ints{2}}})}));
  OptimizedGraph opt = check_same_output(g, {"fuse"});
  CHECK(group_ops(opt) == std::vector<std::vector<std::string>>{{"neg", "exp", "reduce_sum"}, {"sigmoid"}});
}

TEST_CASE("fuse: a value read outside its chain ends the group", "[graph][passes]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 2, 5, 5}, "NCHW"));
  ValueId c = g.add_op("conv2d", {x, g.add_constant("w", random({2, 2, 1, 1}, 1))});
  ValueId r = g.add_op("relu", {c});
  g.add_output(g.add_op("sigmoid", {r}));
  g.add_output(r);  // relu's result is an output too: the conv group ends there
  OptimizedGraph opt = optimize_graph(g, {"fuse"});
  CHECK(group_ops(opt) == std::vector<std::vector<std::string>>{{"conv2d", "relu"}, {"sigmoid"}});
}

TEST_CASE("plan_memory: values with disjoint lifetimes share storage", "[graph][passes]") {
  Graph g;
  ValueId v = g.add_input("x", f32({256}));
  for (int i = 0; i < 6; ++i) v = g.add_op(i % 2 ? "relu" : "neg", {v});
  g.add_output(v);
  OptimizedGraph opt = optimize_graph(g, {"plan_memory"});
  const MemoryPlan& m = *opt.memory;
  CHECK(m.storage_bytes.size() == 4);  // input, output, and two buffers the chain alternates between
  CHECK(m.planned_bytes == 2 * 1024);
  CHECK(m.intermediate_bytes == 5 * 1024);
  CHECK(test::memory_plan_problems(opt).empty());
  // Fused, the chain is one kernel from input to output: nothing to plan.
  OptimizedGraph fused = optimize_graph(g, {"fuse", "plan_memory"});
  CHECK(fused.memory->planned_bytes == 0);
}

TEST_CASE("fuse: an anchor takes element-wise consumers only, not a reshape", "[graph][passes]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 2, 4, 4}, "NCHW"));
  ValueId c = g.add_op("relu", {g.add_op("conv2d", {x, g.add_constant("w", random({2, 2, 1, 1}, 1))})});
  g.add_output(g.add_op("sigmoid", {g.add_op("reshape", {c}, {{"shape", Ints{1, 32}}})}));
  OptimizedGraph opt = optimize_graph(g, {"fuse"});
  CHECK(group_ops(opt) == std::vector<std::vector<std::string>>{{"conv2d", "relu"}, {"reshape", "sigmoid"}});
}

TEST_CASE("fuse: a layout transform read only by a blocked convolution runs in its kernel", "[graph][passes]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 3, 8, 8}, "NCHW"));
  Attributes same{{"pads", Ints{1, 1, 1, 1}}};
  ValueId y = g.add_op("relu", {g.add_op("conv2d", {x, g.add_constant("w", random({16, 3, 3, 3}, 1))}, same)});
  ValueId a = g.add_op("conv2d", {y, g.add_constant("wa", random({16, 16, 3, 3}, 2))}, same);
  ValueId b = g.add_op("conv2d", {y, g.add_constant("wb", random({16, 16, 1, 1}, 3))});
  g.add_output(g.add_op("add", {a, b}));
  // On AVX2: y in 16-channel blocks, both convolutions reading 8 through one transform.
  Target avx2 = Target::parse("llvm_cpu -isa=avx2");
  using Ops = std::vector<std::string>;
  CHECK(group_ops(optimize_graph(g, {"layout", "fuse"}, avx2)) ==
        std::vector<Ops>{{"layout_transform", "conv2d_nchwc", "relu"},  // the RGB input's, read by one convolution
                         {"layout_transform"},                          // read by two: computed once
                         {"conv2d_nchwc"},
                         {"conv2d_nchwc", "add"},
                         {"layout_transform"}});                        // read by the graph's output
  CHECK(group_ops(optimize_graph(g, {"layout", "fuse{layout_into_conv=false}"}, avx2)).front() == Ops{"layout_transform"});
}

TEST_CASE("fuse_blocks: expansion, depthwise and projection become one block when their tensors outgrow the L2",
          "[graph][passes]") {
  // Chained inside the block: the expansion's and the depthwise's outputs, 32 x 12 x 12 floats
  // each (18 KiB) with stride 1.
  std::vector<std::string> pipeline = {"layout", "fuse", "fuse_blocks"};
  for (int64_t stride : {1, 2}) {
    Graph g = test::inverted_residual(stride);
    OptimizedGraph small = optimize_graph(g, pipeline, Target::parse("llvm_cpu -isa=avx2 -l2=16K"));
    std::vector<FusedGroup> groups = fused_groups(small);
    auto block = std::find_if(groups.begin(), groups.end(), [](const FusedGroup& f) { return !f.tile_values.empty(); });
    REQUIRE(block != groups.end());
    CHECK(block->tile_values.size() == 2);  // the expansion's output, then the depthwise's
    CHECK(small.graph.node(block->anchor).op == "conv2d_nchwc");
    CHECK(block->outputs.size() == 1);
    for (ValueId v : block->tile_values) CHECK(small.graph.value(v).producer >= 0);
    // Nothing outside the block reads what it chains.
    for (const FusedGroup& f : groups)
      if (&f != &*block)
        for (ValueId v : block->tile_values) CHECK(std::find(f.inputs.begin(), f.inputs.end(), v) == f.inputs.end());
    // The L2 fraction moves the threshold; a large L2 keeps the three kernels apart.
    auto blocks = [&](const std::string& target, const std::string& pass) {
      OptimizedGraph opt = optimize_graph(g, {"layout", "fuse", pass}, Target::parse(target));
      auto is_block = [](const FusedGroup& f) { return !f.tile_values.empty(); };
      return std::count_if(opt.groups->begin(), opt.groups->end(), is_block);
    };
    CHECK(blocks("llvm_cpu -isa=avx2 -l2=1M -threads=1", "fuse_blocks") == 0);
    CHECK(blocks("llvm_cpu -isa=avx2 -l2=1M -threads=1", "fuse_blocks{l2_fraction=0.01}") == 1);
    CHECK(blocks("llvm_cpu -isa=avx2 -l2=16K -threads=1", "fuse_blocks{l2_fraction=100}") == 0);
    // On several threads the fraction is scaled (threaded_scale, default 0.5): 18-36 KiB chained
    // stay apart within a 40 KiB L2 on one thread and fuse on two.
    // (share_rows 0: at stride 2 the 6 output rows would give each thread 3, which splits the
    // block by channels whatever its bytes.)
    CHECK(blocks("llvm_cpu -isa=avx2 -l2=40K -threads=1", "fuse_blocks") == 0);
    CHECK(blocks("llvm_cpu -isa=avx2 -l2=40K -threads=2", "fuse_blocks{share_rows=0}") == 1);
    CHECK(blocks("llvm_cpu -isa=avx2 -l2=40K -threads=2", "fuse_blocks{threaded_scale=1,share_rows=0}") == 0);
  }
  // A thread's share of the block's output rows at most share_rows (default 4): on two threads the
  // block splits its channels between them (the projection's channel_shares), on one it does not,
  // and share_rows 0 never does.
  auto channel_shares = [](int64_t stride, const std::string& target, const std::string& pass) {
    OptimizedGraph opt =
        optimize_graph(test::inverted_residual(stride), {"layout", "fuse", pass}, Target::parse(target));
    for (const FusedGroup& f : *opt.groups)
      if (!f.tile_values.empty()) return opt.graph.node(f.anchor).attrs.get_int("channel_shares", 1);
    return int64_t{0};  // no block
  };
  CHECK(channel_shares(2, "llvm_cpu -isa=avx2 -threads=2", "fuse_blocks") == 2);            // 6 rows: 3 a thread
  CHECK(channel_shares(1, "llvm_cpu -isa=avx2 -threads=2", "fuse_blocks") == 0);            // 12 rows: 6 a thread
  CHECK(channel_shares(1, "llvm_cpu -isa=avx2 -threads=2", "fuse_blocks{share_rows=6}") == 2);
  CHECK(channel_shares(2, "llvm_cpu -isa=avx2 -threads=1", "fuse_blocks") == 0);
  CHECK(channel_shares(2, "llvm_cpu -isa=avx2 -threads=2", "fuse_blocks{share_rows=0}") == 0);
  CHECK(channel_shares(2, "llvm_cpu -isa=avx2 -threads=3", "fuse_blocks") == 0);  // 2 blocks of 16: no 3 shares
  // Without fusion there are no groups to merge: the pass says so and changes nothing.
  OptimizedGraph unfused = optimize_graph(test::inverted_residual(1), {"layout", "fuse_blocks"});
  CHECK(unfused.report.back().find("the fuse pass did not run") != std::string::npos);
  CHECK(!unfused.groups);
}
