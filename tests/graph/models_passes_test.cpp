// The default graph pass pipeline on the exported models (datasets/models/, built into
// build/models): batch norms folded, constants folded, duplicates and dead nodes removed, then run
// by the unfused executor, the output must still match PyTorch's within the graph issue's target
// (1e-4 relative, 1e-5 absolute); the fusion and the memory plan are checked for consistency, and
// ResNet-18's planned activation memory must be at most half the sum of its intermediate tensors.
#include <catch2/catch.hpp>
#include <iostream>

#include "frontends/numpy/npy.h"
#include "frontends/onnx/onnx_importer.h"
#include "ops/graph/unfused_executor.h"
#include "passes/graph/graph_pass.h"
#include "tests/frontends/compare_arrays.h"
#include "tests/graph/memory_plan_check.h"

using namespace tessel;

namespace {

std::string model_path(const std::string& name, const std::string& suffix) {
  return std::string(TESSEL_BINARY_DIR) + "/models/" + name + suffix;
}

graph::OptimizedGraph check_optimized_model(const std::string& name) {
  graph::Graph g = frontend::import_onnx(model_path(name, ".onnx"));
  graph::OptimizedGraph opt = graph::optimize_graph(g);
  std::cout << name << ":\n";
  for (const std::string& line : opt.report) std::cout << "  " << line << "\n";
  CHECK(test::memory_plan_problems(opt).empty());
  size_t grouped = 0;
  for (const graph::FusedGroup& group : *opt.groups) grouped += group.nodes.size();
  size_t operators = 0;
  for (graph::NodeId n : opt.graph.nodes()) operators += opt.graph.node(n).is_operator();
  CHECK(grouped == operators);
  ops::UnfusedExecutor exec(opt.graph);
  NDArray input = frontend::read_npy(model_path(name, ".input.npy"));
  NDArray expected = frontend::read_npy(model_path(name, ".output.npy"));
  NDArray out = exec.run({{opt.graph.value(opt.graph.inputs()[0]).name, input}})[0];
  test::Closeness c = test::compare_arrays(out, expected, 1e-4, 1e-5);
  INFO(name << ": " << c.problem << " max abs " << c.max_abs << " max rel " << c.max_rel);
  CHECK(c.close);
  return opt;
}

}  // namespace

TEST_CASE("graph passes on ResNet-18: output unchanged, activation memory halved", "[models][passes][resnet18]") {
  graph::OptimizedGraph opt = check_optimized_model("resnet18");
  std::map<std::string, int> ops;
  for (graph::NodeId n : opt.graph.nodes()) ++ops[opt.graph.node(n).op];
  CHECK(ops.count("batch_norm") == 0);  // every normalization follows a convolution
  const graph::MemoryPlan& m = *opt.memory;
  std::cout << "resnet18: planned activation memory " << m.planned_bytes << " bytes, intermediates "
            << m.intermediate_bytes << " bytes\n";
  CHECK(2 * m.planned_bytes <= m.intermediate_bytes);
}

TEST_CASE("graph passes on MobileNet-V2", "[models][passes][mobilenet_v2]") { check_optimized_model("mobilenet_v2"); }
TEST_CASE("graph passes on DQN", "[models][passes][dqn]") { check_optimized_model("dqn"); }
TEST_CASE("graph passes on the DCGAN generator", "[models][passes][dcgan]") { check_optimized_model("dcgan"); }
TEST_CASE("graph passes on the LSTM language model", "[models][passes][lstm_lm]") { check_optimized_model("lstm_lm"); }
