// Fused kernels (ops/graph/fused_kernel.h) run by the fused executor (compiler/fused_executor.h)
// over the memory plan, against the unfused executor on the same graph: convolutions, dense
// layers and pooling with their element-wise tails, element-wise chains into reductions, opaque
// operators; and the exported models against PyTorch's outputs.
#include "compiler/compile_model.h"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include "frontends/numpy/npy.h"
#include "frontends/onnx/onnx_importer.h"
#include "ir/printer.h"
#include "ops/graph/fused_kernel.h"
#include "ops/graph/unfused_executor.h"
#include "passes/lower/lower.h"
#include "tests/frontends/compare_arrays.h"
#include "tests/graph/graph_builder_util.h"
#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::graph;

namespace {

TensorType f32(std::vector<int64_t> shape, std::string layout = "") {
  return {std::move(shape), DataType::float32(), std::move(layout)};
}

ValueId constant(Graph& g, const std::string& name, std::vector<int64_t> shape, uint64_t seed) {
  return g.add_constant(name, NDArray::random_uniform(std::move(shape), DataType::float32(), seed, -1, 1));
}

// Runs g fused (by default, the default pipeline) and unfused on the same random input; returns
// the fusion.
std::vector<FusedGroup> check_fused_matches_unfused(const Graph& g,
                                                    const std::vector<std::string>& pipeline = default_pipeline(),
                                                    const Target& target = Target::host()) {
  OptimizedGraph opt = optimize_graph(g, pipeline, target);
  GraphExecutor fused = compile_model(opt, target).executor();
  std::map<std::string, NDArray> in;
  for (ValueId v : g.inputs())
    in[g.value(v).name] = NDArray::random_uniform(g.value(v).type.shape, DataType::float32(), 3 + v, -1, 1);
  std::vector<NDArray> expected = ops::UnfusedExecutor(g).run(in);
  for (int round = 0; round < 2; ++round) {  // twice: buffers reused across runs hold stale data
    std::vector<NDArray> out = fused.run(in);
    REQUIRE(out.size() == expected.size());
    for (size_t i = 0; i < out.size(); ++i) {
      test::Closeness c = test::compare_arrays(out[i], expected[i], 1e-5, 1e-5);
      INFO("output " << i << ": max abs diff " << c.max_abs << " " << c.problem);
      CHECK(c.close);
    }
  }
  return *opt.groups;
}

}  // namespace

TEST_CASE("fused kernels: convolution with its element-wise tail, residual block", "[graph][fused]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 8, 10, 10}, "NCHW"));
  Attributes same{{"pads", Ints{1, 1, 1, 1}}};
  ValueId c1 = g.add_op("conv2d", {x, constant(g, "w1", {8, 8, 3, 3}, 1)}, same);
  std::vector<ValueId> bn{c1};
  for (uint64_t i = 0; i < 4; ++i)
    bn.push_back(g.add_constant("bn" + std::to_string(i), NDArray::random_uniform({8}, DataType::float32(), 20 + i, 0.5, 2)));
  ValueId y = g.add_op("relu", {g.add_op("batch_norm", bn)});
  ValueId c2 = g.add_op("conv2d", {y, constant(g, "w2", {8, 8, 3, 3}, 2)}, same);
  ValueId res = g.add_op("clip", {g.add_op("add", {c2, y})}, {{"min", 0.0}, {"max", 0.5}});
  ValueId dw = g.add_op("conv2d", {res, constant(g, "dw", {8, 1, 3, 3}, 3)},
                        {{"pads", Ints{1, 1, 1, 1}}, {"groups", int64_t{8}}, {"strides", Ints{2, 2}}});
  ValueId pool = g.add_op("relu", {g.add_op("avg_pool2d", {dw}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{1, 1}}})});
  g.add_output(pool);
  // conv+bias+relu, conv+add+clip, depthwise conv, pool+relu
  CHECK(check_fused_matches_unfused(g, parse_pipeline("-layout")).size() == 4);
  // The same groups in NCHW8c, with a transform of the output, the input's in the first
  // convolution's kernel; or in a kernel of its own.
  CHECK(check_fused_matches_unfused(g).size() == 5);
  CHECK(check_fused_matches_unfused(
            g, parse_pipeline("fold_batch_norm,fold_constants,cse,dce,layout,fuse{layout_into_conv=false},plan_memory"))
            .size() == 6);
}

namespace {

// The default pipeline with every 1x1 convolution on row tiles (under AVX2 a projection to 7x7
// would otherwise run over its flattened pixels, ops/conv2d_pixels.h, which no block takes), and
// its blocks split by rows (`share_rows` 0) or, on several threads, by channels where a thread's
// share of the output is that many rows or fewer.
std::vector<std::string> row_tiles_pipeline(int share_rows = 0) {
  std::vector<std::string> pipeline = default_pipeline();
  std::replace(pipeline.begin(), pipeline.end(), std::string("layout"), std::string("layout{pixel_tiles=false}"));
  std::replace(pipeline.begin(), pipeline.end(), std::string("fuse_blocks"),
               "fuse_blocks{share_rows=" + std::to_string(share_rows) + "}");
  return pipeline;
}

}  // namespace

TEST_CASE("fused blocks: expansion, depthwise and projection sliding down the rows match unfused",
          "[graph][fused][blocks]") {
  // MobileNet-V2's inverted residual, 16 -> 64 -> 16 channels, with an L2 so small that the block
  // fuses: the first and last rows (padding), stride 2 (no residual, the window moving on by two
  // expansion rows), one thread's share and two (the second starting mid-image with its halo;
  // under stride 2, 7 rows in shares of 4 and 3).
  for (int64_t stride : {1, 2}) {
    Graph g = test::inverted_residual(stride, 16, 64, 14);
    for (const char* target : {"llvm_cpu -isa=avx2 -l2=32K", "llvm_cpu -isa=avx2 -l2=8K -threads=2",
                               "llvm_cpu -isa=avx512 -l2=32K"}) {
      Target t = Target::parse(target);
      if (!t.cannot_run_reason().empty()) continue;  // AVX-512 on an AVX2 machine
      INFO(target << ", stride " << stride);
      std::vector<FusedGroup> groups = check_fused_matches_unfused(g, row_tiles_pipeline(), t);
      auto is_block = [](const FusedGroup& f) { return !f.tile_values.empty(); };
      auto block = std::find_if(groups.begin(), groups.end(), is_block);
      REQUIRE(block != groups.end());
      // The expansion slides down the rows in a ring of 4 of its rows (64 x 4 x 14 floats) under
      // the depthwise window, not the whole expanded tensor (64 x 14 x 14), although the
      // depthwise reads it through its padding's clamps.
      OptimizedGraph opt = optimize_graph(g, row_tiles_pipeline(), t);
      ops::GroupKernel k = ops::group_kernel(opt.graph, block->nodes, block->outputs.at(0), block->tile_values);
      std::string code = to_string(lower(ops::schedule_group(k, t), k.args(), "block", t));
      INFO(code);
      // (AVX-512 stacks 4 rows of 7 columns in a register tile at stride 2, under which the window
      // spans 9 expansion rows: a ring of 16 would outgrow the tensor, which it then keeps.)
      bool whole = stride == 2 && t.cpu().isa == CpuIsa::AVX512;
      CHECK((code.find("[float32 * 12544]") != std::string::npos) == whole);
      CHECK((code.find("[float32 * 3584]") != std::string::npos) == !whole);
      CHECK(code.find("parallel") != std::string::npos);
    }
  }
}

TEST_CASE("fused blocks: split by channels on two threads, each thread's share of the chain its own",
          "[graph][fused][blocks]") {
  // 7 output rows give a thread 4 or fewer: each of the two threads computes its half of the
  // expanded and depthwise channels (32 x 7 x 7 floats at stride 1, 32 x 14 x 14 expanded at
  // stride 2) and its partial sums of the projection over them, added after. The chain fits the L2
  // (no block by bytes), and without share_rows no block forms.
  Target t = Target::parse("llvm_cpu -isa=avx2 -threads=2");
  for (int64_t stride : {1, 2}) {
    INFO("stride " << stride);
    Graph g = test::inverted_residual(stride, 16, 64, stride == 1 ? 7 : 14);
    std::vector<FusedGroup> groups = check_fused_matches_unfused(g, row_tiles_pipeline(4), t);
    auto is_block = [](const FusedGroup& f) { return !f.tile_values.empty(); };
    auto block = std::find_if(groups.begin(), groups.end(), is_block);
    REQUIRE(block != groups.end());
    OptimizedGraph opt = optimize_graph(g, row_tiles_pipeline(4), t);
    CHECK(opt.graph.node(block->anchor).attrs.get_int("channel_shares", 1) == 2);
    ops::GroupKernel k = ops::group_kernel(opt.graph, block->nodes, block->outputs.at(0), block->tile_values);
    std::string code = to_string(lower(ops::schedule_group(k, t), k.args(), "block", t));
    INFO(code);
    CHECK(code.find(stride == 1 ? "[float32 * 1568]" : "[float32 * 6272]") != std::string::npos);  // the expansion's half
    CHECK(code.find("[float32 * 1568]") != std::string::npos);                                     // the depthwise's half
    CHECK(code.find("[float32 * 3136]") == std::string::npos);  // no whole depthwise output (64 x 7 x 7)
    CHECK(code.find("parallel") != std::string::npos);
    std::vector<FusedGroup> unsplit = *optimize_graph(g, row_tiles_pipeline(0), t).groups;
    CHECK(std::none_of(unsplit.begin(), unsplit.end(), is_block));
  }
}

TEST_CASE("fused blocks: a 3x3 expansion that pads per thread alone pads inline in its tile", "[graph][fused][blocks]") {
  // The expansion's own default pads per thread on two threads (many multiply-adds per input
  // element); computed per row tile of the block there is no thread loop of its own to pad at.
  Graph g;
  ValueId x = g.add_input("x", f32({1, 16, 14, 14}, "NCHW"));
  Attributes same{{"pads", Ints{1, 1, 1, 1}}}, relu6{{"min", 0.0}, {"max", 6.0}};
  ValueId e = g.add_op("clip", {g.add_op("conv2d", {x, constant(g, "we", {64, 16, 3, 3}, 1)}, same)}, relu6);
  Attributes dw{{"pads", Ints{1, 1, 1, 1}}, {"groups", int64_t{64}}};
  ValueId d = g.add_op("clip", {g.add_op("conv2d", {e, constant(g, "wd", {64, 1, 3, 3}, 2)}, dw)}, relu6);
  g.add_output(g.add_op("conv2d", {d, constant(g, "wp", {16, 64, 1, 1}, 3)}));
  Target t = Target::parse("llvm_cpu -isa=avx2 -l2=8K -threads=2");
  std::vector<FusedGroup> groups = check_fused_matches_unfused(g, default_pipeline(), t);
  auto is_block = [](const FusedGroup& f) { return f.tile_values.size() == 2; };
  CHECK(std::count_if(groups.begin(), groups.end(), is_block) == 1);
}

TEST_CASE("fused kernels: dense with bias and softmax, element-wise chains into reductions", "[graph][fused]") {
  Graph g;
  ValueId x = g.add_input("x", f32({4, 16}));
  ValueId h = g.add_op("tanh", {g.add_op("add", {g.add_op("dense", {x, constant(g, "w", {12, 16}, 1)}),
                                                constant(g, "b", {12}, 2)})});
  ValueId s = g.add_op("softmax", {h}, {{"axis", int64_t{1}}});
  ValueId r = g.add_op("reduce_sum", {g.add_op("exp", {g.add_op("neg", {s})})}, {{"axes", Ints{1}}});
  g.add_output(r);
  g.add_output(s);
  std::vector<FusedGroup> groups = check_fused_matches_unfused(g);
  CHECK(groups.size() == 3);
}

TEST_CASE("prefetch_weights: a convolution's kernel prefetches the classifier's weights, results unchanged",
          "[graph][fused][prefetch]") {
  // A classifier at batch 1 does 2 flops per 4-byte weight (600 x 16 floats: 38 KB, above the
  // lowered threshold); the 3x3 convolution before it does 230 K flops, more than 4 per byte of them
  // and its own weights (below the default budget of 6: the carrier's threshold lowered too).
  Graph g;
  ValueId x = g.add_input("x", f32({1, 8, 10, 10}, "NCHW"));
  ValueId c = g.add_op("relu", {g.add_op("conv2d", {x, constant(g, "wc", {16, 8, 3, 3}, 1)},
                                         {{"pads", Ints{1, 1, 1, 1}}})});
  ValueId pooled = g.add_op("reshape", {g.add_op("global_avg_pool2d", {c})}, {{"shape", Ints{1, 16}}});
  g.add_output(g.add_op("dense", {pooled, constant(g, "wd", {600, 16}, 2)}));
  // The default pipeline with the pass's parameters; min_vector_registers=0 for any host (by
  // default the pass runs for targets with 32 vector registers only: AVX-512).
  auto with_pass = [](const std::string& entry) {
    std::vector<std::string> pipeline = default_pipeline();
    std::replace(pipeline.begin(), pipeline.end(), std::string("prefetch_weights"), entry);
    return pipeline;
  };
  std::vector<std::string> pipeline = with_pass("prefetch_weights{min_bytes=4096,min_vector_registers=0,carrier_flops_per_byte=4}");
  check_fused_matches_unfused(g, pipeline);
  // The convolution's group carries the dense group's one constant (its packed weights), no other group anything.
  OptimizedGraph opt = optimize_graph(g, pipeline);
  const std::vector<FusedGroup>& groups = *opt.groups;
  auto anchored = [&](const std::string& op) {
    return std::find_if(groups.begin(), groups.end(),
                        [&](const FusedGroup& f) { return f.anchor >= 0 && opt.graph.node(f.anchor).op == op; });
  };
  auto conv = anchored("conv2d_nchwc"), dense = anchored("dense_packed");
  REQUIRE(conv != groups.end());
  REQUIRE(dense != groups.end());
  std::vector<ValueId> dense_constants;
  for (ValueId v : dense->inputs)
    if (opt.graph.constant_value(v)) dense_constants.push_back(v);
  CHECK(dense_constants.size() == 1);
  CHECK(conv->prefetched == dense_constants);
  for (const FusedGroup& f : groups) CHECK((&f == &*conv) == !f.prefetched.empty());
  // In the module, the convolution's call takes the weights as an argument it does not read.
  CompiledModel model = compile_model(opt);
  nlohmann::json weights = {{"param", opt.graph.value(conv->prefetched.at(0)).name}};
  int calls_with_weights = 0;
  for (const nlohmann::json& node : model.graph["nodes"]) {
    calls_with_weights += std::count(node["args"].begin(), node["args"].end(), weights);
    // The carrier's JSON counts the bytes it prefetches apart from those it reads (for profiles).
    bool carrier = node.contains("prefetches");
    CHECK(node.value("prefetch_bytes", int64_t(0)) ==
          (carrier ? int64_t(opt.graph.constant_value(conv->prefetched.at(0))->nbytes()) : 0));
  }
  CHECK(calls_with_weights == 2);
  // The params come in the order the calls first name them, the carried weights at their carrier:
  // the executor packs them so (runtime/packed_params.h).
  std::vector<std::string> first_named;
  for (const nlohmann::json& node : model.graph["nodes"])
    for (const nlohmann::json& arg : node["args"])
      if (arg.contains("param") && std::find(first_named.begin(), first_named.end(), arg["param"]) == first_named.end())
        first_named.push_back(arg["param"]);
  std::vector<std::string> listed;
  for (const NamedArray& p : model.params) listed.push_back(p.name);
  CHECK(listed == first_named);
  // The carrier's budget counts its own weights beside those it carries: a threshold between the
  // convolution's flops per carried byte and its flops per byte of both moves nothing.
  auto bytes_of = [&](ValueId v) { return static_cast<double>(opt.graph.constant_value(v)->nbytes()); };
  double own = 0, carried = bytes_of(conv->prefetched.at(0)), flops = 2.0 * 16 * 10 * 10 * 8 * 9;
  for (ValueId v : conv->inputs)
    if (opt.graph.constant_value(v)) own = std::max(own, bytes_of(v));
  REQUIRE(own > 0);
  std::string between = std::to_string(flops / (carried + own / 2));
  OptimizedGraph budget = optimize_graph(
      g, with_pass("prefetch_weights{min_bytes=4096,min_vector_registers=0,carrier_flops_per_byte=" + between + "}"));
  for (const FusedGroup& group : *budget.groups) CHECK(group.prefetched.empty());
  // Under the AVX2 ceiling (16 vector registers), by default nothing moves.
  OptimizedGraph avx2 = optimize_graph(g, with_pass("prefetch_weights{min_bytes=4096}"), Target::parse("llvm_cpu -isa=avx2"));
  for (const FusedGroup& group : *avx2.groups) CHECK(group.prefetched.empty());
  CHECK(std::any_of(avx2.report.begin(), avx2.report.end(), [](const std::string& line) {
    return line.find("nothing prefetched: the target has 16 vector registers") != std::string::npos;
  }));
  // Below the size threshold (the default, 128 KiB), nothing moves.
  OptimizedGraph small = optimize_graph(g, with_pass("prefetch_weights{min_vector_registers=0}"));
  for (const FusedGroup& group : *small.groups) CHECK(group.prefetched.empty());
  CHECK(std::any_of(small.report.begin(), small.report.end(), [](const std::string& line) {
    return line.find("the weights of 0 groups (0 bytes)") != std::string::npos;
  }));
}

TEST_CASE("fused executor: bad inputs are user errors", "[graph][fused]") {
  Graph g;
  ValueId x = g.add_input("x", f32({4}));
  g.add_output(g.add_op("relu", {x}));
  GraphExecutor exec = compile_model(optimize_graph(g)).executor();
  test::require_user_error([&] { exec.run({}); }, {"no array was given for the model input 'x'"});
  test::require_user_error([&] { exec.run({{"y", NDArray::zeros({4}, DataType::float32())}}); }, {"no input named 'y'"});
  test::require_user_error([&] { exec.run({{"x", NDArray::zeros({5}, DataType::float32())}}); }, {"input 'x'"});
  test::require_user_error([&] { exec.output(1); }, {"no output 1"});
}

namespace {

void check_model_fused(const std::string& name) {
  auto path = [&](const std::string& suffix) { return std::string(TESSEL_BINARY_DIR) + "/models/" + name + suffix; };
  OptimizedGraph opt = optimize_graph(frontend::import_onnx(path(".onnx")));
  CompiledModel model = compile_model(opt);
  NDArray out = model.executor().run({{opt.graph.value(opt.graph.inputs()[0]).name, frontend::read_npy(path(".input.npy"))}})[0];
  test::Closeness c = test::compare_arrays(out, frontend::read_npy(path(".output.npy")), 1e-4, 1e-5);
  std::cout << name << " fused: " << model.graph["nodes"].size() << " kernel calls, " << model.module.info().functions.size()
            << " kernels compiled in " << model.compile_seconds << " s; planned activation memory "
            << model.planned_bytes << " bytes; max abs diff " << c.max_abs << ", max rel diff " << c.max_rel << "\n";
  INFO(name << ": " << c.problem << " max abs " << c.max_abs << " max rel " << c.max_rel);
  CHECK(c.close);
}

}  // namespace

TEST_CASE("fused ResNet-18 matches PyTorch", "[models][fused][resnet18]") { check_model_fused("resnet18"); }
TEST_CASE("fused MobileNet-V2 matches PyTorch", "[models][fused][mobilenet_v2]") { check_model_fused("mobilenet_v2"); }
TEST_CASE("fused DQN matches PyTorch", "[models][fused][dqn]") { check_model_fused("dqn"); }
TEST_CASE("the fused DCGAN generator matches PyTorch", "[models][fused][dcgan]") { check_model_fused("dcgan"); }
TEST_CASE("the fused LSTM language model matches PyTorch", "[models][fused][lstm_lm]") { check_model_fused("lstm_lm"); }
TEST_CASE("the fused ResNet-18 layers match PyTorch", "[models][fused][layers]") {
  for (const char* layer : {"C1", "C5", "C12"}) check_model_fused(std::string("conv_bn_relu_") + layer);
}

TEST_CASE("fused kernels: the tail runs in the convolution's output loop", "[graph][fused]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 4, 6, 6}, "NCHW"));
  ValueId c = g.add_op("conv2d", {x, constant(g, "w", {4, 4, 3, 3}, 1)}, {{"pads", Ints{1, 1, 1, 1}}});
  ValueId y = g.add_op("relu", {g.add_op("bias_add", {c, constant(g, "b", {4}, 2)}, {{"axis", int64_t{1}}})});
  g.add_output(y);
  for (const char* passes : {"-layout", ""}) {
    OptimizedGraph opt = optimize_graph(g, parse_pipeline(passes));
    // NCHW: one group; blocked, the conv2d_nchwc's (with the input's transform) and the output's transform.
    REQUIRE(opt.groups->size() == (*passes ? 1 : 2));
    const FusedGroup& group = opt.groups->at(0);
    std::string conv = opt.graph.node(group.anchor).op, tail = *passes ? "bias_add" : "add";
    ops::GroupKernel k = ops::group_kernel(opt.graph, group.nodes, group.outputs.at(0));
    std::string code = to_string(lower(ops::schedule_group(k, Target::host()), k.args(), "fused"));
    INFO(code);
    // The output is stored once, as relu(accumulator), from a per-tile accumulator that starts at
    // the bias (ops/graph/fold_addend.h): no buffer holds the whole convolution, no stage of its
    // own computes the bias or the relu, and no add of the bias follows the sum.
    CHECK(code.find("] = max(" + conv + "[") != std::string::npos);
    CHECK(std::regex_search(code, std::regex(conv + "\\[[^\\]]*\\] = (x[0-9]+\\()?x2\\[")));
    CHECK(code.find(conv + "[float32 * 144]") == std::string::npos);
    CHECK(code.find("allocate " + tail) == std::string::npos);
  }
}

TEST_CASE("module folders: exported, loaded by the runtime alone, corrupt files refused", "[graph][module]") {
  auto path = [](const std::string& suffix) { return std::string(TESSEL_BINARY_DIR) + "/models/dqn" + suffix; };
  OptimizedGraph opt = optimize_graph(frontend::import_onnx(path(".onnx")));
  CompiledModel model = compile_model(opt);
  std::string dir = (std::filesystem::temp_directory_path() / ("tessel_module_" + std::to_string(getpid()))).string();
  export_model(model, dir);
  GraphExecutor exec = GraphExecutor::load(dir);
  REQUIRE(exec.num_inputs() == 1);
  exec.set_input(exec.input_name(0), frontend::read_npy(path(".input.npy")));
  exec.run();
  test::Closeness c = test::compare_arrays(exec.output(0), frontend::read_npy(path(".output.npy")), 1e-4, 1e-5);
  CHECK(c.close);
  // Corrupt or missing files: one UserError naming the file.
  auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir + "/" + name) << text; };
  std::string graph_text = model.graph.dump();
  write("graph.json", "{not json");
  test::require_user_error([&] { GraphExecutor::load(dir); }, {"graph.json", "not valid JSON"});
  nlohmann::json wrong = model.graph;
  wrong["nodes"][0]["kernel"] = "fused_999";
  write("graph.json", wrong.dump());
  test::require_user_error([&] { GraphExecutor::load(dir); }, {"fused_999"});
  wrong = model.graph;
  wrong["storages"] = nlohmann::json::array({1});
  write("graph.json", wrong.dump());
  test::require_user_error([&] { GraphExecutor::load(dir); }, {"graph.json", "storage"});
  // Sizes, ids and shapes that are not integers, or no array's: refused, never converted
  // (graph.json is fuzzed: fuzz/module_graph_fuzzer.cpp).
  wrong = model.graph;
  wrong["storages"][0] = 1e300;
  write("graph.json", wrong.dump());
  test::require_user_error([&] { GraphExecutor::load(dir); }, {"graph.json", "\"storages\" is not a list of sizes"});
  wrong = model.graph;
  wrong["nodes"][0]["args"][0]["storage"] = 0.5;
  write("graph.json", wrong.dump());
  test::require_user_error([&] { GraphExecutor::load(dir); }, {"graph.json", "uses storage 0.5"});
  wrong = model.graph;
  wrong["inputs"][0]["shape"] = nlohmann::json::array({4294967296, 4294967296});
  write("graph.json", wrong.dump());
  test::require_user_error([&] { GraphExecutor::load(dir); }, {"graph.json", "input", "2^62"});
  wrong["inputs"][0]["shape"] = nlohmann::json::array({-1, 4});
  write("graph.json", wrong.dump());
  test::require_user_error([&] { GraphExecutor::load(dir); }, {"graph.json", "input", "negative"});
  write("graph.json", graph_text);
  write("params.bin", "truncated");
  test::require_user_error([&] { GraphExecutor::load(dir); }, {"params.bin"});
  save_tensors(dir + "/params.bin", model.params);
  std::filesystem::remove(dir + "/kernels.so");
  test::require_user_error([&] { GraphExecutor::load(dir); }, {"kernels.so"});
  std::filesystem::remove_all(dir);
}
