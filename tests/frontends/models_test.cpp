// The exported models (datasets/models/, built into build/models by the build) imported from ONNX,
// compiled node by node with the default schedules and run on their example input: the output must
// match PyTorch's within the graph issue's target, 1e-4 relative and 1e-5 absolute.
#include <catch2/catch.hpp>
#include <iostream>

#include "frontends/numpy/npy.h"
#include "frontends/onnx/onnx_importer.h"
#include "ir/graph/verifier.h"
#include "ops/graph/unfused_executor.h"
#include "support/timing.h"
#include "tests/frontends/compare_arrays.h"

using namespace tessel;

namespace {

std::string model_path(const std::string& name, const std::string& suffix) {
  return std::string(TESSEL_BINARY_DIR) + "/models/" + name + suffix;
}

void check_model(const std::string& name) {
  graph::Graph g = frontend::import_onnx(model_path(name, ".onnx"));
  CHECK(graph::find_problems(g).empty());
  REQUIRE(g.inputs().size() == 1);
  REQUIRE(g.outputs().size() == 1);
  ops::UnfusedExecutor exec(g);
  NDArray input = frontend::read_npy(model_path(name, ".input.npy"));
  NDArray expected = frontend::read_npy(model_path(name, ".output.npy"));
  std::vector<NDArray> out = exec.run({{g.value(g.inputs()[0]).name, input}});
  test::Closeness c = test::compare_arrays(out[0], expected, 1e-4, 1e-5);
  std::cout << name << ": " << g.nodes().size() << " nodes, " << exec.num_kernels() << " kernels compiled in "
            << exec.compile_seconds() << " s; max abs diff " << c.max_abs << ", max rel diff " << c.max_rel << "\n";
  INFO(name << ": " << c.problem << " max abs " << c.max_abs << " max rel " << c.max_rel);
  CHECK(c.close);
}

}  // namespace

TEST_CASE("ResNet-18 matches PyTorch", "[models][resnet18]") { check_model("resnet18"); }
TEST_CASE("MobileNet-V2 matches PyTorch", "[models][mobilenet_v2]") { check_model("mobilenet_v2"); }
TEST_CASE("DQN matches PyTorch", "[models][dqn]") { check_model("dqn"); }
TEST_CASE("the DCGAN generator matches PyTorch", "[models][dcgan]") { check_model("dcgan"); }
TEST_CASE("the LSTM language model matches PyTorch", "[models][lstm_lm]") { check_model("lstm_lm"); }
TEST_CASE("the ResNet-18 layers as conv+bn+relu match PyTorch", "[models][layers]") {
  for (const char* layer : {"C1", "C5", "C12"}) check_model(std::string("conv_bn_relu_") + layer);
}
