// Experiment configs (experiments/experiment_config.h): the contract's example expands into its
// grid, and every kind of bad config fails before any work with its file:line:column and the
// valid names.
#include <catch2/catch.hpp>

#include "experiments/experiment_config.h"
#include "support/error.h"
#include "target/target.h"

using namespace tessel;
using namespace tessel::experiments;

namespace {

const char* kContract = R"(name: smoke
workloads: [gemm:256, C6]
space: template
strategy: [random, model_based]
cost_model: xgboost
trials: 32
seeds: [0, 1]
backend: llvm_cpu
measure: hardware
)";

ExperimentConfig parse(const std::string& text) { return ExperimentConfig::parse(text, "cfg.yaml"); }

}  // namespace

TEST_CASE("the contract's config expands to workloads x strategies x seeds", "[experiments][config]") {
  ExperimentConfig c = parse(kContract);
  CHECK(c.name == "smoke");
  REQUIRE(c.configurations.size() == 4);
  CHECK(c.runs().size() == 8);
  CHECK(c.seeds == std::vector<int64_t>{0, 1});
  std::vector<std::string> labels;
  for (const Configuration& conf : c.configurations) labels.push_back(conf.workload + " " + conf.label);
  // random takes no cost model, so its label and its effective model say so.
  CHECK(labels == std::vector<std::string>{"gemm:256 random", "gemm:256 model_based+xgboost", "C6 random",
                                           "C6 model_based+xgboost"});
  CHECK(c.configurations[0].cost_model_used == "none");
  CHECK(c.configurations[0].trials == 32);
  CHECK(c.source["strategy"] == nlohmann::json({"random", "model_based"}));
}

TEST_CASE("plugins take parameters and varied keys name their configurations", "[experiments][config]") {
  ExperimentConfig c = parse(
      "name: p\nworkloads: D7\nstrategy: {name: genetic, params: {population: 8}}\ntrials: [16, 32]\n");
  REQUIRE(c.configurations.size() == 2);
  CHECK(c.configurations[0].strategy.params["population"] == 8);
  CHECK(c.configurations[0].label == "genetic{population=8} trials=16");
  CHECK(c.runs().size() == 2);  // one default seed
}

TEST_CASE("bad configs fail with their location and the valid names", "[experiments][config]") {
  CHECK_THROWS_WITH(parse("name: x\nworkloads: [D7]\nstrategy: [random, nosuch]\n"),
                    Catch::Contains("cfg.yaml:3:") && Catch::Contains("unknown strategy 'nosuch'") &&
                        Catch::Contains("genetic"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\ncost_model: xgbost\nstrategy: model_based\n"),
                    Catch::Contains("cfg.yaml:3:13:") && Catch::Contains("xgboost"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nstrategy: {name: genetic, params: {popsize: 8}}\n"),
                    Catch::Contains("cfg.yaml:3:") && Catch::Contains("no parameter 'popsize'") &&
                        Catch::Contains("valid parameters"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nstrategy: {name: genetic, params: {population: many}}\n"),
                    Catch::Contains("cfg.yaml:3:") && Catch::Contains("population"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nstrategys: random\n"),
                    Catch::Contains("cfg.yaml:3:1: unknown key 'strategys'") && Catch::Contains("strategy"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\ntrials: lots\n"),
                    Catch::Contains("cfg.yaml:3:9: trials must be an integer"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: [D7, Q99]\n"), Catch::Contains("cfg.yaml:2:17:"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: [D7\ntrials: 3\n"), Catch::Contains("cfg.yaml:") &&
                                                                       Catch::Contains("malformed YAML"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nstrategy: model_based\n"), Catch::Contains("cfg.yaml:3:"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nmeasure: replay:no_such_set\n"),
                    Catch::Contains("cfg.yaml:3:10:") && Catch::Contains("no recorded set named 'no_such_set'"));
  CHECK_THROWS_WITH(parse("workloads: D7\n"), Catch::Contains("no 'name'"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nseeds: [1, 1]\n"), Catch::Contains("listed twice"));
  CHECK_THROWS_WITH(ExperimentConfig::load("/no/such/config.yaml"), Catch::Contains("cannot read"));
}

TEST_CASE("targets are a grid key, checked against the back end and, measured here, the host", "[experiments][config]") {
  ExperimentConfig c = parse("name: t\nworkloads: gemm:256\nmeasure: replay:small_cpu\n"
                             "target: [\"llvm_cpu -isa=avx2\", \"llvm_cpu -isa=avx512\"]\n");
  REQUIRE(c.configurations.size() == 2);
  CHECK(c.configurations[0].target == "llvm_cpu -isa=avx2");
  CHECK(c.configurations[1].backend.name == "llvm_cpu");  // the target's kind
  CHECK(c.configurations[1].label == "random target=llvm_cpu -isa=avx512");
  CHECK(c.configurations[0].to_json()["target"] == "llvm_cpu -isa=avx2");
  CHECK(ExperimentConfig::parse("name: t\nworkloads: D7\n", "cfg.yaml", "llvm_cpu -isa=sse4").configurations[0].target ==
        "llvm_cpu -isa=sse4");  // experiment run --target
  CHECK_THROWS_WITH(parse("name: t\nworkloads: D7\ntarget: \"llvm_cpu -isa=avx7\"\n"), Catch::Contains("cfg.yaml:3:"));
  CHECK_THROWS_WITH(parse("name: t\nworkloads: D7\ntarget: c_source\nbackend: llvm_cpu\n"),
                    Catch::Contains("cfg.yaml:3:") && Catch::Contains("backend"));
  if (!Target::parse("llvm_cpu -isa=avx512").cannot_run_reason().empty())
    CHECK_THROWS_WITH(parse("name: t\nworkloads: D7\ntarget: \"llvm_cpu -isa=avx512\"\n"),
                      Catch::Contains("cfg.yaml:3:"));
}
