// Tuned models: the operator workload of a fused group's anchor (compiler/anchor_workload.h), the
// records a group finds (exact, nearest shape, default) and the report saying which
// (compiler/group_schedule.h), --require-tuned, and the tasks tune-model extracts
// (compiler/model_tasks.h), compiled models compared and timed in the sandbox
// (search/measure/model_sandbox.h) and tune-model's check of its choices in the model
// (compiler/model_check.h). The tuned kernels are checked against the unfused executor.
#include "compiler/anchor_workload.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "backends/c_source/c_compiler.h"
#include "compiler/compile_model.h"
#include "compiler/model_check.h"
#include "compiler/model_tasks.h"
#include "ops/graph/unfused_executor.h"
#include "search/measure/model_sandbox.h"
#include "search/tuner.h"
#include "support/registry.h"
#include "tests/graph/graph_builder_util.h"
#include "tests/frontends/compare_arrays.h"
#include "tests/search/search_test_util.h"
#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::graph;

namespace {

using test::f32;
ValueId constant(Graph& g, const std::string& name, std::vector<int64_t> shape, uint64_t seed) {
  return test::random_constant(g, name, std::move(shape), seed);
}

// The workload name of the node producing `v`, "" when none.
std::string workload_of(const Graph& g, ValueId v) {
  std::optional<search::WorkloadSpec> w = anchor_workload(g, g.value(v).producer);
  return w ? w->name : "";
}

// x[4,16] -> dense(W[n,16]) + bias -> relu; W a constant (the layout pass packs it into panels) or
// an input.
Graph dense_model(int64_t n, bool constant_weight = true) {
  Graph g;
  ValueId x = g.add_input("x", f32({4, 16}));
  ValueId w = constant_weight ? constant(g, "w", {n, 16}, 1) : g.add_input("w", f32({n, 16}));
  ValueId y = g.add_op("dense", {x, w});
  g.add_output(g.add_op("relu", {g.add_op("add", {y, constant(g, "b", {n}, 2)})}));
  return g;
}

// x[1,8,10,10] -> conv 3x3 pad 1 -> relu, the weights drawn from `seed`.
Graph conv_model(uint64_t seed = 3) {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 8, 10, 10}));
  ValueId c = g.add_op("conv2d", {x, constant(g, "w", {8, 8, 3, 3}, seed)}, {{"pads", Ints{1, 1, 1, 1}}});
  g.add_output(g.add_op("relu", {c}));
  return g;
}

// x[1,16,10,10] -> conv 1x1 to 32 channels -> depthwise 3x3 pad 1: blocked by the layout pass, the
// depthwise convolution takes the block its producer writes.
Graph conv_depthwise_model() {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 16, 10, 10}));
  ValueId c = g.add_op("conv2d", {x, constant(g, "pw", {32, 16, 1, 1}, 12)});
  Attributes dw3{{"pads", Ints{1, 1, 1, 1}}, {"groups", int64_t{32}}};
  g.add_output(g.add_op("conv2d", {c, constant(g, "dw", {32, 1, 3, 3}, 11)}, dw3));
  return g;
}

// The workload of each operator of g after the graph passes for `target`, by operator name.
std::map<std::string, std::string> workloads_by_op(const Graph& g, const std::vector<std::string>& passes,
                                                   const Target& target) {
  OptimizedGraph opt = optimize_graph(g, passes, target);
  std::map<std::string, std::string> by_op;
  for (NodeId n : opt.graph.nodes()) {
    if (!opt.graph.node(n).is_operator()) continue;
    if (std::optional<search::WorkloadSpec> w = anchor_workload(opt.graph, n)) by_op[opt.graph.node(n).op] = w->name;
  }
  return by_op;
}

// Tunes `workload` for a few trials into the database at `path` (the records tune-model makes).
void tune(const std::string& workload, const std::string& path, int64_t trials) {
  search::Task task = search::Task::create(workload, "template");
  auto strategy = Registry<search::SearchStrategy>::instance().create("random");
  search::RecordsDb db = search::RecordsDb::open(path);
  search::TuneOptions options;
  options.trials = trials;
  options.batch = 2;
  options.progress = false;
  options.measure.repeats = 1;
  search::Tuner(task, *strategy, search::make_run_key(task, "random", 0), &db, options).run();
}

// Compiles g (the default graph passes, or `passes`) with the records at `path` and checks the
// compiled model against the unfused executor; returns the schedule labels of the kernel calls
// whose anchor has a workload.
std::vector<std::string> compile_and_check(const Graph& g, const std::string& path, const std::string& passes = "") {
  search::TunedRecords records = search::TunedRecords::read(path);
  CompiledModel model = compile_model(optimize_graph(g, parse_pipeline(passes)), Target::host(), {&records});
  std::map<std::string, NDArray> in;
  for (ValueId v : g.inputs())
    in[g.value(v).name] = NDArray::random_uniform(g.value(v).type.shape, DataType::float32(), 5, -1, 1);
  std::vector<NDArray> expected = ops::UnfusedExecutor(g).run(in), out = model.executor().run(in);
  test::Closeness c = test::compare_arrays(out.at(0), expected.at(0), 1e-5, 1e-5);
  INFO("max abs diff " << c.max_abs << " " << c.problem);
  CHECK(c.close);
  std::vector<std::string> labels;
  for (const auto& node : model.graph["nodes"])
    if (node["tuning"].contains("workload")) labels.push_back(node["schedule"]);
  return labels;
}

}  // namespace

TEST_CASE("anchor workloads: convolutions, depthwise and dense map to the operators' workloads by shape",
          "[graph][tuned]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 8, 14, 12}));
  Attributes s2p1{{"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}};
  CHECK(workload_of(g, g.add_op("conv2d", {x, constant(g, "w1", {16, 8, 3, 3}, 1)}, s2p1)) ==
        "conv2d:1,8,14,12,16,3,2,1");
  CHECK(workload_of(g, g.add_op("conv2d", {x, constant(g, "w2", {4, 8, 1, 1}, 2)})) == "conv2d:1,8,14,12,4,1,1,0");
  Attributes dw{{"strides", Ints{1, 1}}, {"pads", Ints{2, 2, 2, 2}}, {"groups", int64_t{8}}};
  CHECK(workload_of(g, g.add_op("conv2d", {x, constant(g, "w3", {8, 1, 5, 5}, 3)}, dw)) == "depthwise:1,8,14,12,5,1,2");
  ValueId m = g.add_input("m", f32({3, 20}));
  CHECK(workload_of(g, g.add_op("dense", {m, constant(g, "w4", {7, 20}, 4)})) == "gemm:3,7,20");
  SECTION("what the workload specs cannot express has none") {
    Attributes grouped{{"groups", int64_t{2}}};
    CHECK(workload_of(g, g.add_op("conv2d", {x, constant(g, "w5", {8, 4, 3, 3}, 5)}, grouped)).empty());
    Attributes asymmetric{{"pads", Ints{0, 0, 1, 1}}};
    CHECK(workload_of(g, g.add_op("conv2d", {x, constant(g, "w6", {8, 8, 3, 3}, 6)}, asymmetric)).empty());
    Attributes uneven{{"strides", Ints{1, 2}}};
    CHECK(workload_of(g, g.add_op("conv2d", {x, constant(g, "w7", {8, 8, 3, 3}, 7)}, uneven)).empty());
    Attributes dilated{{"dilations", Ints{2, 2}}};
    CHECK(workload_of(g, g.add_op("conv2d", {x, constant(g, "w8", {8, 8, 3, 3}, 8)}, dilated)).empty());
    CHECK(workload_of(g, g.add_op("conv2d", {x, constant(g, "w9", {8, 8, 3, 1}, 9)})).empty());  // not square
    CHECK(workload_of(g, g.add_op("relu", {x})).empty());
    CHECK_FALSE(anchor_workload(g, -1));
  }
  SECTION("blocked by the layout pass, a depthwise convolution is a depthwise workload in its producer's block") {
    // On AVX2 the 1x1 convolution writes blocks of 16 (two vectors); the operator's own block is 8.
    CHECK(workloads_by_op(conv_depthwise_model(), {"layout"}, Target::parse("llvm_cpu -isa=avx2")) ==
          std::map<std::string, std::string>{{"depthwise_conv2d_nchwc", "depthwise:1,32,10,10,3,1,1,16"},
                                             {"conv2d_nchwc", "conv2d:1,16,10,10,32,1,1,0"}});
    // A record tuned in one block is not one of another block, nor of the operator's own.
    std::string blocked16 = search::parse_workload("depthwise:1,32,10,10,3,1,1,16").key();
    CHECK(blocked16 != search::parse_workload("depthwise:1,32,10,10,3,1,1,8").key());
    CHECK(blocked16 != search::parse_workload("depthwise:1,32,10,10,3,1,1").key());
    test::require_user_error([] { search::parse_workload("depthwise:1,32,10,10,3,1,1,12"); },
                             "channel block B (12) must divide C (32)");
  }
  SECTION("the key is the operator's: a group finds what `tessel tune` recorded for the same shape") {
    std::optional<search::WorkloadSpec> w =
        anchor_workload(g, g.value(g.add_op("conv2d", {x, constant(g, "w10", {16, 8, 3, 3}, 10)}, s2p1)).producer);
    REQUIRE(w);
    CHECK(w->key() == search::parse_workload("conv2d:1,8,14,12,16,3,2,1").key());
  }
}

TEST_CASE("tuned models: exact and nearest records apply to the groups, visibly, and compute the same",
          "[graph][tuned][measure]") {
  test::ScratchDir dir;
  std::string path = dir.file("runs.db");
  tune("gemm:4,12,16", path, 4);
  std::optional<search::TunedConfig> best =
      search::TunedRecords::read(path).find(search::Task::create("gemm:4,12,16", "template"));
  REQUIRE(best);
  std::string record = best->record_candidate.str();
  CHECK(compile_and_check(dense_model(12), path) == std::vector<std::string>{"tuned (record " + record + ")"});
  // gemm:4,20,16 has no record; gemm:4,12,16's knob values are a point of its space (same panel, M, K).
  CHECK(compile_and_check(dense_model(20), path) ==
        std::vector<std::string>{"nearest (record " + record + " of shape gemm:4,12,16)"});
  SECTION("a depthwise convolution finds the record tuned in its producer's block") {
    Graph g = conv_depthwise_model();
    std::string depthwise = workloads_by_op(g, parse_pipeline(""), Target::host()).at("depthwise_conv2d_nchwc");
    tune(depthwise, path, 4);
    std::vector<std::string> labels = compile_and_check(g, path);
    REQUIRE(labels.size() == 2);
    auto tuned = [](const std::string& label) { return label.rfind("tuned (record", 0) == 0; };
    CHECK(std::count_if(labels.begin(), labels.end(), tuned) == 1);
  }
  SECTION("a record whose selection chose the template's default runs today's default schedule") {
    search::RecordsDb db = search::RecordsDb::open(path);
    search::TrialRecord trial = db.best_per_task().at(0);
    search::SelectionRecord chose_default{trial.run, trial.candidate, trial.config, "default", 3, 10.0, 1.0, true, ""};
    db.append_selection({chose_default});
    std::string won = "tuned (record " + trial.candidate.str() + ", whose selection chose the default: the default runs)";
    CHECK(compile_and_check(dense_model(12), path) == std::vector<std::string>{won});
    search::TunedRecords records = search::TunedRecords::read(path);
    CompiledModel model = compile_model(optimize_graph(dense_model(12)), Target::host(), {&records, true});
    CHECK(model.graph["nodes"][0]["tuning"]["default_won"] == true);
  }
  SECTION("the JSON of a group says the same") {
    search::TunedRecords records = search::TunedRecords::read(path);
    CompiledModel model = compile_model(optimize_graph(dense_model(20)), Target::host(), {&records});
    const auto& tuning = model.graph["nodes"][0]["tuning"];
    CHECK(tuning["status"] == "nearest");
    CHECK(tuning["workload"] == "gemm:4,20,16");
    CHECK(tuning["record_shape"] == "gemm:4,12,16");
  }
  SECTION("without a record that fits, the default; --require-tuned makes it an error naming how to tune it") {
    std::vector<std::string> labels = compile_and_check(conv_model(), path);
    REQUIRE(labels.size() == 1);
    CHECK(labels[0].rfind("default (conv2d_nchwc; no record for conv2d:1,8,10,10,8,3,1,1", 0) == 0);
    search::TunedRecords records = search::TunedRecords::read(path);
    test::require_user_error([&] { compile_model(optimize_graph(conv_model()), Target::host(), {&records, true}); },
                             {"fused_0", "layout_transform+conv2d_nchwc+relu", "conv2d:1,8,10,10,8,3,1,1", "tessel tune"});
  }
}

TEST_CASE("tuned models: a convolution's record applies to its blocked group, never to another computation",
          "[graph][tuned]") {
  test::ScratchDir dir;
  std::string path = dir.file("runs.db");
  // A record of the conv's own workload (the template's default point). With the layout pass the
  // group's anchor is the template's blocked convolution and runs it; without, the anchor is the
  // NCHW convolution, so the group keeps its default and says why.
  search::Task task = search::Task::create("conv2d:1,8,10,10,8,3,1,1", "template");
  search::TrialRecord r;
  r.run = search::make_run_key(task, "random", 0);
  r.trial = 1;
  r.candidate = task.default_candidate();
  r.config = task.space().to_json(r.candidate);
  r.result.status = search::TrialStatus::Ok;
  r.result.timing.median_us = 10;
  r.gflops = 1;
  search::RecordsDb::open(path).append({r});
  CHECK(compile_and_check(conv_model(), path) == std::vector<std::string>{"tuned (record " + r.candidate.str() + ")"});
  std::vector<std::string> labels = compile_and_check(conv_model(), path, "-layout");
  REQUIRE(labels.size() == 1);
  CHECK(labels[0] == "default (conv2d_nchw; record " + r.candidate.str() +
                         " not applied: its anchor is a conv2d_nchw stage, the template schedules conv2d_nchwc)");
  // A record from an older version of the template (a knob value the space no longer has) is
  // passed over, and the label says so.
  std::string old_path = dir.file("old.db");
  r.config["tile_ow"] = {1, 1000};
  search::RecordsDb::open(old_path).append({r});
  CHECK(compile_and_check(conv_model(), old_path) ==
        std::vector<std::string>{"default (conv2d_nchwc; the records of conv2d:1,8,10,10,8,3,1,1 in " + old_path +
                                 " are of an older version of its template (tune it again))"});
}

TEST_CASE("tuned models: a fused block finds the record of its chain, applies it visibly, and computes the same",
          "[graph][tuned]") {
  // The inverted residual's tensors (18 KiB each) outgrow a hundredth of the L2: one block.
  const std::string passes = "fold_constants,layout,fuse,fuse_blocks{l2_fraction=0.01},plan_memory";
  Graph g = test::inverted_residual(1);
  std::vector<search::WeightedTask> tasks = model_tasks(optimize_graph(g, parse_pipeline(passes)), Target::host());
  REQUIRE(tasks.size() == 1);
  const search::Task& task = tasks[0].task;
  // The input arrives blocked: its layout transform is a group of its own, read by the residual add too.
  CHECK(task.workload().name == "block:1,8,12,12,8/c1,1,0,32/d3,1,1/c1,1,0,8");
  auto record_of = [](const search::Task& t, const search::Candidate& point) {
    search::TrialRecord r;
    r.run = search::make_run_key(t, "random", 0);
    r.trial = 1;
    r.candidate = point;
    r.config = t.space().to_json(point);
    r.result.status = search::TrialStatus::Ok;
    r.result.timing.median_us = 10;
    r.gflops = 1;
    return r;
  };
  test::ScratchDir dir;
  SECTION("its own chain's record, a point other than the default: the block runs it and says so") {
    uint64_t next = (task.default_candidate().index() + 1) % task.space().size();
    search::Candidate point = search::Candidate::from_index(next);
    std::string path = dir.file("runs.db");
    search::RecordsDb::open(path).append({record_of(task, point)});
    CHECK(compile_and_check(g, path, passes) == std::vector<std::string>{"tuned (record " + point.str() + ")"});
    // Another chain (stride 2) is another workload: the record is not its.
    std::vector<std::string> strided = compile_and_check(test::inverted_residual(2), path, passes);
    REQUIRE(strided.size() == 1);
    CHECK(strided[0].rfind("default (fused block: ", 0) == 0);
    CHECK(strided[0].find("no record for block:1,8,12,12,0/c1,1,0,32/d3,2,1/c1,1,0,8") != std::string::npos);
  }
  SECTION("a chain of the same extents expanding to 16 channels: the nearest record") {
    search::Task narrower = search::Task::create("block:1,8,12,12,8/c1,1,0,16/d3,1,1/c1,1,0,8", "template");
    std::string path = dir.file("near.db");
    search::RecordsDb::open(path).append({record_of(narrower, narrower.default_candidate())});
    CHECK(compile_and_check(g, path, passes) ==
          std::vector<std::string>{"nearest (record " + narrower.default_candidate().str() +
                                   " of shape block:1,8,12,12,8/c1,1,0,16/d3,1,1/c1,1,0,8)"});
  }
}

TEST_CASE("tuned models: a GEMM configuration packing in other panels rebuilds a dense group with them",
          "[graph][tuned]") {
  test::ScratchDir dir;
  std::string path = dir.file("runs.db");
  search::Task task = search::Task::create("gemm:4,32,16", "template");
  int64_t default_panel = task.space().to_json(task.default_candidate())["panel"];
  search::TrialRecord r;
  r.run = search::make_run_key(task, "random", 0);
  r.trial = 1;
  for (uint64_t i = 0; i < task.space().size() && !r.config.is_object(); ++i) {
    nlohmann::json config = task.space().to_json(search::Candidate::from_index(i));
    if (config["panel"] != default_panel) r.candidate = search::Candidate::from_index(i), r.config = config;
  }
  REQUIRE(r.config.is_object());
  r.result.status = search::TrialStatus::Ok;
  r.result.timing.median_us = 1;
  r.gflops = 1;
  search::RecordsDb::open(path).append({r});
  std::vector<std::string> labels = compile_and_check(dense_model(32, false), path);
  CHECK(labels == std::vector<std::string>{"tuned (record " + r.candidate.str() + ")"});
}

TEST_CASE("model tasks: one per distinct anchor workload, weighted by the groups running it", "[graph][tuned]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 8, 10, 10}));
  Attributes same{{"pads", Ints{1, 1, 1, 1}}};
  ValueId a = g.add_op("relu", {g.add_op("conv2d", {x, constant(g, "w1", {8, 8, 3, 3}, 1)}, same)});
  ValueId b = g.add_op("relu", {g.add_op("conv2d", {a, constant(g, "w2", {8, 8, 3, 3}, 2)}, same)});
  ValueId c = g.add_op("conv2d", {b, constant(g, "w3", {8, 8, 1, 1}, 3)});
  ValueId p = g.add_op("global_avg_pool2d", {c});
  g.add_output(p);
  std::vector<search::WeightedTask> tasks = model_tasks(optimize_graph(g), Target::host());
  REQUIRE(tasks.size() == 2);
  CHECK(tasks[0].task.workload().name == "conv2d:1,8,10,10,8,3,1,1");
  CHECK(tasks[0].weight == 2);
  CHECK(tasks[1].task.workload().name == "conv2d:1,8,10,10,8,1,1,0");
  CHECK(tasks[1].weight == 1);
}

TEST_CASE("each kernel call of an anchor with a workload carries its nominal operations", "[graph][tuned]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 8, 14, 12}));
  Attributes s2p1{{"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}};
  ValueId c = g.add_op("conv2d", {x, constant(g, "w", {16, 8, 3, 3}, 1)}, s2p1);
  ValueId r = g.add_op("relu", {c});
  g.add_output(g.add_op("max_pool2d", {r}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}}));
  CompiledModel model = compile_model(optimize_graph(g));
  int with_flops = 0;
  for (const auto& node : model.graph["nodes"]) {
    INFO(node.dump());
    CHECK(node.contains("flops") == node["tuning"].contains("workload"));
    if (!node.contains("flops")) continue;
    ++with_flops;
    // 16 outputs x 7 x 6 points, each 8 channels x 3 x 3 multiply-adds
    CHECK(node["flops"].get<double>() == 2.0 * 16 * 7 * 6 * 8 * 9);
  }
  CHECK(with_flops == 1);
}

TEST_CASE("each kernel call carries the bytes of the weights it reads", "[graph][tuned]") {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 8, 14, 12}));
  ValueId c = g.add_op("conv2d", {x, constant(g, "w", {16, 8, 3, 3}, 1)}, {{"pads", Ints{1, 1, 1, 1}}});
  ValueId r = g.add_op("relu", {g.add_op("add", {c, constant(g, "b", {1, 16, 1, 1}, 2)})});
  g.add_output(g.add_op("max_pool2d", {r}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}}));
  CompiledModel model = compile_model(optimize_graph(g));
  std::map<std::string, int64_t> param_bytes;
  for (const NamedArray& p : model.params) param_bytes[p.name] = int64_t(p.array.nbytes());
  int with_weights = 0;
  for (const auto& node : model.graph["nodes"]) {
    INFO(node.dump());
    int64_t read = 0;
    for (const auto& arg : node["args"])
      if (arg.contains("param")) read += param_bytes.at(arg["param"].get<std::string>());
    CHECK(node.value("param_bytes", int64_t(0)) == read);
    if (read == 0) continue;
    ++with_weights;
    CHECK(read >= int64_t(sizeof(float)) * (16 * 8 * 3 * 3 + 16));  // the kernel (perhaps blocked) and the bias
  }
  CHECK(with_weights == 1);
}

TEST_CASE("the model sandbox compares compiled models and times them in alternating rounds", "[graph][tuned][measure]") {
  test::ScratchDir dir;
  CompiledModel model = compile_model(optimize_graph(conv_model()));
  export_model(model, dir.file("a"));
  export_model(model, dir.file("b"));
  export_model(compile_model(optimize_graph(conv_model(4))), dir.file("other_weights"));
  std::vector<NamedArray> in = {{"x", NDArray::random_uniform({1, 8, 10, 10}, DataType::float32(), 5)}};
  search::RunOptions options;
  options.repeats = 2;
  options.threads = 1;
  search::ModelTimings same = search::time_models({dir.file("a"), dir.file("b")}, in, options, 3);
  CHECK(same.ok(3));
  REQUIRE(same.round_us.size() == 3);
  for (const std::vector<double>& round : same.round_us) CHECK((round.size() == 2 && round[0] > 0 && round[1] > 0));
  SECTION("a model computing something else is not timed") {
    search::ModelTimings t = search::time_models({dir.file("a"), dir.file("other_weights")}, in, options, 3);
    REQUIRE(t.checks.size() == 2);
    CHECK(t.checks[0].ok());
    CHECK(t.checks[1].status == search::TrialStatus::WrongResult);
    CHECK(t.checks[1].max_abs_err > options.tolerance);
    CHECK(t.round_us.empty());
    CHECK_FALSE(t.ok(3));
  }
  SECTION("a model whose kernel ends the runner is a crash, the runner's exit named") {
    // The same module folder, its kernels replaced by C functions of the same signatures that exit.
    std::filesystem::copy(dir.file("a"), dir.file("exits"));
    ModuleInfo info = load_module(dir.file("a/kernels.so")).info();
    std::string source = "#include <stdlib.h>\n";
    for (FunctionInfo& f : info.functions) {
      f.symbol = f.name + "_exits";
      source += "void " + f.symbol + "(void* const* args) { (void)args; exit(7); }\n";
    }
    std::filesystem::remove(dir.file("exits/kernels.so"));
    c_source::compile_module({{"exits", source}}, info, {}).export_library(dir.file("exits/kernels.so"));
    search::ModelTimings t = search::time_models({dir.file("a"), dir.file("exits")}, in, options, 2);
    REQUIRE(t.checks.size() == 2);
    CHECK(t.checks[0].ok());
    CHECK(t.checks[1].status == search::TrialStatus::Crash);
    CHECK_THAT(t.checks[1].error, Catch::Contains("exited with status 7"));
    CHECK_FALSE(t.ok(2));
  }
  SECTION("a missing module folder or an unknown input is a result naming it") {
    search::ModelTimings t = search::time_models({dir.file("a"), dir.file("missing")}, in, options, 1);
    REQUIRE(t.checks.size() == 2);
    CHECK(t.checks[1].status == search::TrialStatus::RuntimeError);
    CHECK_THAT(t.checks[1].error, Catch::Contains("missing"));
    std::vector<NamedArray> wrong = {{"y", in[0].array}};
    search::ModelTimings u = search::time_models({dir.file("a")}, wrong, options, 1);
    CHECK(u.checks.at(0).status == search::TrialStatus::RuntimeError);
    CHECK_THAT(u.checks[0].error, Catch::Contains("'y'"));
  }
}

TEST_CASE("tune-model's check in the model keeps a choice or records the default in its place",
          "[graph][tuned][measure]") {
  test::ScratchDir dir;
  std::string path = dir.file("runs.db");
  Graph g = conv_model();
  OptimizedGraph opt = optimize_graph(g);
  std::vector<search::WeightedTask> tasks = model_tasks(opt, Target::host());
  REQUIRE(tasks.size() == 1);
  const search::Task& task = tasks[0].task;
  tune(task.workload().name, path, 6);
  search::RecordsDb db = search::RecordsDb::open(path);
  std::vector<search::TrialRecord> trials = db.all();
  auto searched = std::find_if(trials.begin(), trials.end(), [&](const search::TrialRecord& t) {
    return t.result.ok() && t.candidate != task.default_candidate();
  });
  REQUIRE(searched != trials.end());
  // A final selection that chose the searched configuration over the default.
  search::Candidate fallback = task.default_candidate();
  db.append_selection({{searched->run, searched->candidate, searched->config, "search", 3, 10.0, 1.0, true, ""},
                       {searched->run, fallback, task.space().to_json(fallback), "default", 3, 12.0, 1.0, false, ""}});
  REQUIRE(compile_and_check(g, path) == std::vector<std::string>{"tuned (record " + searched->candidate.str() + ")"});
  ModelCheckOptions options;
  options.run.repeats = 1;
  options.run.threads = 1;
  options.rounds = 2;
  SECTION("a choice the model does not gain the margin from is set aside, and compile runs the default") {
    options.margin = 0.99;  // no configuration makes the model 100 times faster
    std::vector<ChoiceCheck> checks = check_choices_in_model(opt, Target::host(), tasks, db, options);
    REQUIRE(checks.size() == 1);
    CHECK(checks[0].workload == task.workload().name);
    CHECK(checks[0].record == searched->candidate.str());
    CHECK(checks[0].note == "");
    CHECK((checks[0].low <= checks[0].ratio && checks[0].ratio <= checks[0].high && checks[0].ratio > 0));
    // two rounds cannot show 95%: the median's interval is their range, at 50%
    CHECK((checks[0].median_low == checks[0].low && checks[0].median_high == checks[0].high));
    CHECK(checks[0].confidence == Approx(0.5));
    CHECK((checks[0].with_ms > 0 && checks[0].without_ms > 0));
    CHECK_FALSE(checks[0].kept);
    CHECK(compile_and_check(g, path) ==
          std::vector<std::string>{"tuned (record " + fallback.str() +
                                   ", whose selection chose the default: the default runs)"});
    CHECK(check_choices_in_model(opt, Target::host(), tasks, db, options).empty());  // nothing left to check
  }
  SECTION("another run's choice, which compile takes once the first is set aside, is checked too") {
    search::RunKey other = searched->run;
    other.seed += 1;
    db.append_selection({{other, searched->candidate, searched->config, "search", 3, 11.0, 1.0, true, ""},
                         {other, fallback, task.space().to_json(fallback), "default", 3, 12.5, 1.0, false, ""}});
    options.margin = 0.99;
    std::vector<ChoiceCheck> checks = check_choices_in_model(opt, Target::host(), tasks, db, options);
    REQUIRE(checks.size() == 2);  // the first run's choice (10 us alone), then the other's (11 us)
    CHECK((!checks[0].kept && !checks[1].kept));
    CHECK((checks[0].ratio > 0 && checks[1].ratio > 0));
    CHECK(compile_and_check(g, path) ==
          std::vector<std::string>{"tuned (record " + fallback.str() +
                                   ", whose selection chose the default: the default runs)"});
    CHECK(check_choices_in_model(opt, Target::host(), tasks, db, options).empty());
  }
  SECTION("a choice the model gains the margin from stays") {
    options.margin = -100;  // kept unless a round runs the model 101 times slower with it
    std::vector<ChoiceCheck> checks = check_choices_in_model(opt, Target::host(), tasks, db, options);
    REQUIRE(checks.size() == 1);
    CHECK(checks[0].kept);
    CHECK(compile_and_check(g, path) == std::vector<std::string>{"tuned (record " + searched->candidate.str() + ")"});
  }
  SECTION("on several thread counts a choice stays only if it gains on each, and is not checked after it lost") {
    options.margin = -100;
    std::vector<ChoiceCheck> kept =
        check_choices_at_thread_counts(g, default_pipeline(), Target::host(), {2, 1}, db, options);
    REQUIRE(kept.size() == 2);
    CHECK((kept[0].threads == 2 && kept[1].threads == 1));
    CHECK((kept[0].kept && kept[1].kept && kept[0].record == kept[1].record));
    options.margin = 0.99;
    std::vector<ChoiceCheck> lost =
        check_choices_at_thread_counts(g, default_pipeline(), Target::host(), {1, 2}, db, options);
    REQUIRE(lost.size() == 1);  // set aside on one thread, so the default runs on two as well
    CHECK((lost[0].threads == 1 && !lost[0].kept));
    CHECK(compile_and_check(g, path) ==
          std::vector<std::string>{"tuned (record " + fallback.str() +
                                   ", whose selection chose the default: the default runs)"});
    CHECK_THROWS_WITH(check_choices_at_thread_counts(g, default_pipeline(), Target::host(), {0}, db, options),
                      Catch::Contains("at least one thread"));
  }
}
