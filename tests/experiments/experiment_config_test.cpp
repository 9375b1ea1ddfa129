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
  // A cost model no strategy of the grid uses would be ignored by every run; in a grid where one
  // strategy uses it, the others run without it, as their labels say.
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nstrategy: [random, genetic]\ncost_model: xgboost\n"),
                    Catch::Contains("cfg.yaml:4:13: no strategy of this config ranks candidates with a cost model, "
                                    "so cost_model 'xgboost' would be ignored"));
  CHECK(parse("name: x\nworkloads: D7\nstrategy: [random, model_based]\ncost_model: xgboost\n")
            .configurations.size() == 2);
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

TEST_CASE("a key given twice is refused wherever it is, with both lines", "[experiments][config]") {
  // yaml-cpp keeps both entries: the loader read the first at the top and the last among params.
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\ntrials: 4\ntrials: 8\n"),
                    Catch::Contains("cfg.yaml:4:1: key 'trials' is given twice (first on line 3)"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nstrategy: {name: genetic, params: {population: 4, population: 8}}\n"),
                    Catch::Contains("cfg.yaml:3:") && Catch::Contains("key 'population' is given twice"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nstrategy:\n  - name: genetic\n    name: random\n"),
                    Catch::Contains("cfg.yaml:5:5: key 'name' is given twice (first on line 4)"));
  // An alias repeats a node, not a key: it is fine.
  CHECK(parse("name: x\nworkloads: D7\nstrategy: [&g {name: genetic}, *g]\n").configurations.size() == 1);
}

TEST_CASE("numbers follow one rule per kind, the command line's", "[experiments][config]") {
  // The same messages as `--trials 99999999999999999999`, `--seed -1`, `--threads 100000` (cli_contract.sh).
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\ntrials: 99999999999999999999\n"),
                    Catch::Contains("cfg.yaml:3:9: trials is 99999999999999999999; valid range: [1, 1000000]"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nseeds: [0, -1]\n"),
                    Catch::Contains("cfg.yaml:3:12: a seed is -1; valid range: >= 0"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nthreads: 100000\n"),
                    Catch::Contains("threads is 100000; valid range: [1, 256]"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nselect: -1\n"), Catch::Contains("select is -1; valid range: [0, 64]"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\ntimeout: 0\n"), Catch::Contains("timeout is 0; valid range: (0, 86400]"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\ntrials: 0x10\n"), Catch::Contains("trials must be an integer, got '0x10'"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\ntrials: '8'\n"), Catch::Contains("trials must be a number"));
  // Plugin parameters: the registry's ranges, bounded above (10^9 chains grew past 10 GB).
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nstrategy: {name: model_based, params: {chains: 1000000000}}\n"
                          "cost_model: xgboost\n"),
                    Catch::Contains("parameter 'chains' of strategy 'model_based' is 1000000000; valid range: [1, 4096]"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\nstrategy: {name: genetic, params: {seed: -2}}\n"),
                    Catch::Contains("parameter 'seed' of strategy 'genetic' is -2; valid range: >= 0"));
  CHECK(parse("name: x\nworkloads: D7\ntrials: +12\nseeds: [007]\n").configurations[0].trials == 12);
}

TEST_CASE("a grid or file too large is refused before it is expanded, naming its size", "[experiments][config]") {
  std::string many = "name: x\nworkloads: [D7, D5, C6]\ntrials: [";
  for (int i = 1; i <= 40; ++i) many += std::to_string(i) + (i < 40 ? ", " : "]\n");
  many += "batch: [";
  for (int i = 1; i <= 50; ++i) many += std::to_string(i) + (i < 50 ? ", " : "]\n");
  many += "seeds: [0, 1]\n";
  CHECK_THROWS_WITH(parse(many), Catch::Contains("cfg.yaml:4:8: the config's grid has 12000 runs (workloads 3 x trials "
                                                 "40 x batch 50 x seeds 2); at most 10000 runs"));
  std::string huge = "name: x\nworkloads: [" + std::string(2 << 20, ' ') + "D7]\n";
  CHECK_THROWS_WITH(parse(huge), Catch::Contains("cfg.yaml: the config is larger than 1048576 bytes"));
}

TEST_CASE("an unquoted shape in a list says to quote it", "[experiments][config]") {
  CHECK_THROWS_WITH(parse("name: x\nworkloads: [conv2d:1,64,56,56,64,3,1,1]\n"),
                    Catch::Contains("cfg.yaml:2:13: bad conv2d shape") &&
                        Catch::Contains("a shape inside a YAML list must be quoted"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: [D7, 64]\n"), Catch::Contains("must be quoted"));
  CHECK_THROWS_WITH(parse("name: x\nworkloads: [D7, Q99]\n"), !Catch::Contains("quoted"));
  CHECK(parse("name: x\nworkloads: ['depthwise:1,32,14,14,3,2,1', gemm:64]\n").configurations.size() == 2);
}

TEST_CASE("a back end that is not the default names the configuration and keys its runs", "[experiments][config]") {
  ExperimentConfig c = parse("name: x\nworkloads: D7\nbackend: {name: llvm_cpu, params: {opt_level: 1}}\n");
  CHECK(c.configurations[0].label == "random backend=llvm_cpu{opt_level=1}");
  CHECK(c.configurations[0].backend.params["opt_level"] == 1);
  // Its defaults, given or not, are the default back end.
  CHECK(parse("name: x\nworkloads: D7\nbackend: {name: llvm_cpu, params: {opt_level: 3}}\n").configurations[0].label ==
        "random");
  CHECK(parse("name: x\nworkloads: D7\nbackend: c_source\n").configurations[0].label == "random backend=c_source");
}

TEST_CASE("cache_flush is a grid key that names its configurations and keys their runs", "[experiments][config]") {
  ExperimentConfig one = parse("name: x\nworkloads: D7\ncache_flush: true\n");
  CHECK(one.configurations[0].cache_flush);
  CHECK(one.configurations[0].label == "random cache_flush=true");  // cold runs never resume hot ones
  CHECK(one.configurations[0].to_json()["cache_flush"] == true);
  CHECK(parse("name: x\nworkloads: D7\ncache_flush: false\n").configurations[0].label == "random");
  ExperimentConfig both = parse("name: x\nworkloads: D7\ncache_flush: [false, true]\n");
  REQUIRE(both.configurations.size() == 2);
  CHECK(both.configurations[0].label == "random cache_flush=false");
  CHECK(both.configurations[1].label == "random cache_flush=true");
  CHECK_THROWS_WITH(parse("name: x\nworkloads: D7\ncache_flush: yes please\n"),
                    Catch::Contains("cfg.yaml:3:14: cache_flush must be true or false"));
}
