// Model experiments in configs (experiments/experiment_config.h): model:PATH workloads expand over
// graph_passes × records × threads with labels naming what varies, and bad ones fail on load with
// their place (unknown keys, mixed workloads, pipelines, missing models or databases).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "experiments/experiment_config.h"
#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::experiments;

namespace {

// A folder with two (empty) model files and a records file: loading checks only that they exist.
struct Files {
  Files() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tessel-models-XXXXXX").string();
    dir = mkdtemp(pattern.data());
    for (const char* name : {"a.onnx", "b.onnx", "runs.db"}) std::ofstream(dir / name) << "x";
  }
  ~Files() { std::filesystem::remove_all(dir); }
  std::string operator()(const char* name) const { return (dir / name).string(); }
  std::filesystem::path dir;
};

ExperimentConfig parse(const std::string& text) { return ExperimentConfig::parse(text, "m.yaml"); }

}  // namespace

TEST_CASE("a model experiment expands models x graph_passes x records x threads", "[experiments][config][models]") {
  Files f;
  ExperimentConfig c = parse("name: e2e\nworkloads: [model:" + f("a.onnx") + ", model:" + f("b.onnx") +
                             "]\ngraph_passes: [none, \"\", \"-fuse\"]\nrecords: [none, " + f("runs.db") +
                             "]\nthreads: [1, 2]\nrepeats: 3\n");
  REQUIRE(c.is_model_experiment());
  CHECK(c.configurations.empty());
  REQUIRE(c.models.size() == 2 * 3 * 2 * 2);
  CHECK(c.measure.repeats == 3);
  const ModelConfiguration& first = c.models.front();
  CHECK(first.model == f("a.onnx"));
  CHECK(first.graph_passes == "plan_memory");  // none: no graph optimization, memory planning alone
  CHECK(first.records.empty());
  CHECK(first.threads == 1);
  CHECK(first.label == "passes=none threads=1");
  CHECK(c.models[3].label == "passes=none tuned=" + f("runs.db") + " threads=2");
  CHECK(c.models[4].graph_passes.empty());
  CHECK(c.models[4].label == "passes=all threads=1");
  CHECK(c.models.back().graph_passes == "-fuse");
  SECTION("defaults: every pass, no records, 2 threads") {
    ExperimentConfig d = parse("name: d\nworkloads: model:" + f("a.onnx") + "\n");
    REQUIRE(d.models.size() == 1);
    CHECK(d.models[0].label == "passes=all threads=2");
  }
}

TEST_CASE("bad model experiments fail on load, saying where and what to do", "[experiments][config][models]") {
  Files f;
  std::string a = "model:" + f("a.onnx");
  test::require_user_error([&] { parse("name: x\nworkloads: [" + a + ", gemm:64]\n"); },
                           {"m.yaml:2:", "must all be model:"});
  test::require_user_error([&] { parse("name: x\nworkloads: [" + a + "]\nstrategy: random\n"); },
                           {"m.yaml:3:1", "unknown key 'strategy'", "graph_passes"});
  test::require_user_error([&] { parse("name: x\nworkloads: [" + a + "]\ngraph_passes: [-fusion]\n"); },
                           {"m.yaml:3:", "fusion"});
  test::require_user_error([&] { parse("name: x\nworkloads: [model:/nonexistent/m.onnx]\n"); },
                           {"m.yaml:2:", "/nonexistent/m.onnx", "does not exist"});
  test::require_user_error([&] { parse("name: x\nworkloads: [" + a + "]\nrecords: /nonexistent.db\n"); },
                           {"m.yaml:3:", "tessel tune-model"});
  test::require_user_error([&] { parse("name: x\nworkloads: [" + a + "]\nthreads: [1, 0]\n"); },
                           {"m.yaml:3:", "threads"});
  test::require_user_error([&] { parse("name: x\nworkloads: [" + a + "]\nrounds: 0\n"); }, {"m.yaml:3:", "rounds"});
}
