// The tuning tasks of the exported models (datasets/models/, built into build/models) on each CPU
// ISA start from their defaults: tune-model's final selection measures a task's default
// configuration as a point of its space, so every default must be one (a 2-row tile of MobileNet-V2's
// 7-row 1x1 outputs was not, and its tune-model failed after its trials), and that point must lower
// to the operator's default schedule, which an untuned compile runs.
#include <catch2/catch.hpp>

#include <algorithm>

#include "compiler/model_tasks.h"
#include "frontends/onnx/onnx_importer.h"
#include "ir/equality.h"
#include "ir/printer.h"

using namespace tessel;

TEST_CASE("every tuning task of ResNet-18 and MobileNet-V2 has its default in its space", "[graph][tuned][models]") {
  for (const char* model : {"resnet18", "mobilenet_v2"}) {
    graph::Graph g = frontend::import_onnx(std::string(TESSEL_BINARY_DIR) + "/models/" + model + ".onnx");
    for (const char* isa : {"avx2", "avx512"}) {
      Target target = Target::parse(std::string("llvm_cpu -isa=") + isa);
      std::vector<search::WeightedTask> tasks =
          model_tasks(graph::optimize_graph(g, graph::default_pipeline(), target), target);
      CHECK(tasks.size() >= 10);
      for (const search::WeightedTask& t : tasks) {
        INFO(model << " on " << isa << ": " << t.task.workload().name);
        search::Candidate point;
        REQUIRE_NOTHROW(point = t.task.default_candidate());
        LoweredFunc from_space = t.task.lower(point);
        LoweredFunc ops_default = t.task.lower_default_program();
        INFO("the default point\n" << to_string(from_space) << "\nops' default\n" << to_string(ops_default));
        CHECK(structural_equal(from_space, ops_default));
      }
    }
  }
}

TEST_CASE("a model's tasks leave out dense groups packed in a panel width their template lacks",
          "[graph][tuned][models]") {
  // A classifier of 1000 outputs is packed at compile time in panels of four vectors, which do
  // not divide 1000, so the GEMM template (panel widths dividing N) could never apply a record to
  // it; DQN's 512 outputs divide, so its dense layers stay tasks.
  Target target = Target::parse("llvm_cpu -isa=avx512");
  auto workloads = [&](const char* model, const std::string& passes) {
    graph::Graph g = frontend::import_onnx(std::string(TESSEL_BINARY_DIR) + "/models/" + model + ".onnx");
    std::vector<std::string> names;
    graph::OptimizedGraph optimized = graph::optimize_graph(g, graph::parse_pipeline(passes), target);
    for (const search::WeightedTask& t : model_tasks(optimized, target)) names.push_back(t.task.workload().name);
    return names;
  };
  std::vector<std::string> mobilenet = workloads("mobilenet_v2", ""), dqn = workloads("dqn", "");
  auto is_gemm = [](const std::string& w) { return w.rfind("gemm:", 0) == 0; };
  CHECK(std::none_of(mobilenet.begin(), mobilenet.end(), is_gemm));
  // Without the layout pass the classifier packs its weights in its own kernel, at the width a
  // configuration chooses: a task.
  std::vector<std::string> unpacked = workloads("mobilenet_v2", "-layout");
  CHECK(std::count(unpacked.begin(), unpacked.end(), "gemm:1,1000,1280") == 1);
  CHECK(std::count(dqn.begin(), dqn.end(), "gemm:1,512,3136") == 1);
  CHECK(std::count(dqn.begin(), dqn.end(), "gemm:1,18,512") == 1);
}

TEST_CASE("a model's 1x1 convolutions computed over their pixels are tasks of the pixels operator",
          "[graph][tuned][models]") {
  // Under AVX2, MobileNet-V2's 1x1 convolutions at 7x7 run as conv2d_nchwc_pixels
  // (ops/conv2d_pixels.h), which the conv2d template does not schedule: they are pixels tasks
  // (search/spaces/pixels_template.h); with pixel tiles off they are conv2d tasks again.
  Target avx2 = Target::parse("llvm_cpu -isa=avx2");
  graph::Graph g = frontend::import_onnx(std::string(TESSEL_BINARY_DIR) + "/models/mobilenet_v2.onnx");
  auto tasks_named = [&](const std::string& passes, const std::string& name) {
    graph::OptimizedGraph optimized = graph::optimize_graph(g, graph::parse_pipeline(passes), avx2);
    std::vector<search::WeightedTask> tasks = model_tasks(optimized, avx2);
    return std::count_if(tasks.begin(), tasks.end(),
                         [&](const search::WeightedTask& t) { return t.task.workload().name == name; });
  };
  // (On several threads the 7x7 blocks would split by channels, tasks of the block operator.)
  const std::string rows =
      "fold_batch_norm,fold_constants,cse,dce,layout{pixel_tiles=false},fuse,fuse_blocks{share_rows=0},plan_memory";
  for (const char* layer : {"160,7,7,960", "320,7,7,1280"}) {
    INFO(layer);
    CHECK(tasks_named("", "conv2d:1," + std::string(layer) + ",1,1,0") == 0);
    CHECK(tasks_named("", "pixels:1," + std::string(layer)) == 1);
    CHECK(tasks_named(rows, "conv2d:1," + std::string(layer) + ",1,1,0") == 1);
  }
  CHECK(tasks_named("", "conv2d:1,96,14,14,576,1,1,0") == 1);  // 14 wide: row tiles, a task
}

TEST_CASE("tune-model's tasks are those of the model compiled for every thread count it is checked at",
          "[graph][tuned][models]") {
  // fuse_blocks merges more blocks on several threads: MobileNet-V2 on two threads runs 14x14
  // blocks whose chains its one-thread module runs as three groups each.
  Target target = Target::parse("llvm_cpu -isa=avx2 -threads=1 -l2=1M");
  graph::Graph g = frontend::import_onnx(std::string(TESSEL_BINARY_DIR) + "/models/mobilenet_v2.onnx");
  std::vector<std::string> pipeline = graph::default_pipeline();
  auto keys = [&](const std::vector<int>& counts) {
    std::vector<std::string> out;
    std::vector<std::string> notes;
    for (const search::WeightedTask& t : model_tasks_at_thread_counts(g, pipeline, target, counts, &notes)) {
      CHECK(t.task.target() == target);  // made for the measurement's target, whatever the count
      out.push_back(t.task.workload().key());
    }
    return out;
  };
  auto blocks = [](const std::vector<std::string>& k) {
    return std::count_if(k.begin(), k.end(), [](const std::string& s) { return s.find("block") != std::string::npos; });
  };
  std::vector<std::string> one = keys({1}), two = keys({2}), both = keys({1, 2});
  std::vector<std::string> single, notes;  // model_tasks of the one-thread module
  for (const search::WeightedTask& t : model_tasks(graph::optimize_graph(g, pipeline, target), target, &notes))
    single.push_back(t.task.workload().key());
  CHECK(one == single);
  CHECK(blocks(two) > blocks(one));
  for (const std::string& k : one) CHECK(std::count(both.begin(), both.end(), k) == 1);
  for (const std::string& k : two) CHECK(std::count(both.begin(), both.end(), k) == 1);
  CHECK(both.size() < one.size() + two.size());  // the layers both modules run are tasks once
  CHECK_THROWS_WITH(model_tasks_at_thread_counts(g, pipeline, target, {0}, &notes),
                    Catch::Contains("at least one thread"));
}
