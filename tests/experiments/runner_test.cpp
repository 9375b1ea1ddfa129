// The experiment runner end to end, in replay (experiments/replay_smoke.yaml over the shipped
// recorded set): every output exists and parses, summary.json has the contract's fields, curves
// never go down, replay reproduces the recorded best, and running again resumes instead of
// measuring anything twice.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/report.h"
#include "experiments/runner.h"
#include "search/records/records_db.h"
#include "search/replay/recorded_set.h"
#include "tests/search/search_test_util.h"

using namespace tessel;
using namespace tessel::experiments;
namespace fs = std::filesystem;

namespace {

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

// run,workload,configuration,seed,trial,best_gflops rows → best-so-far per run, in file order.
std::map<int, std::vector<double>> read_curves(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  CHECK(line == "run,workload,configuration,seed,trial,best_gflops");
  std::map<int, std::vector<double>> curves;
  while (std::getline(in, line)) {
    int run = std::stoi(line.substr(0, line.find(',')));
    curves[run].push_back(std::stod(line.substr(line.rfind(',') + 1)));
  }
  return curves;
}

bool matplotlib_available() { return std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") == 0; }

}  // namespace

TEST_CASE("a replay experiment writes every output and resumes", "[experiments][runner]") {
  test::ScratchDir dir;
  ExperimentConfig config = ExperimentConfig::load(TESSEL_SOURCE_DIR "/experiments/replay_smoke.yaml");
  RunnerOptions options;
  options.out_dir = dir.file("out");
  options.plots = matplotlib_available();
  nlohmann::json summary = run_experiment(config, options);
  fs::path out = options.out_dir;
  for (const char* file : {"manifest.json", "records.db", "curves.csv", "summary.json", "summary.md"})
    CHECK(fs::exists(out / file));
  if (options.plots)
    for (const char* file : {"plots/D7.png", "plots/D7.svg", "plots/C9.png", "plots/C9.svg"})
      CHECK(fs::exists(out / file));

  nlohmann::json manifest = read_json(out / "manifest.json");
  CHECK(manifest["runs"].size() == 12);
  CHECK(manifest["cpu"].contains("model"));
  CHECK(manifest["git"].contains("commit"));
  CHECK(manifest["libraries"].contains("xgboost"));

  REQUIRE(read_json(out / "summary.json") == summary);
  REQUIRE(summary.size() == 6);
  search::RecordedSet set = search::RecordedSet::load(search::resolve_recorded_set("small_cpu"));
  for (const nlohmann::json& s : summary) {
    for (const char* key : {"mean_best_gflops", "spread", "baseline", "trials_to_95pct"}) CHECK(s.contains(key));
    CHECK(s["baseline"]["median_us"] == set.workload(s["workload"], "template").baseline_us);
    CHECK(s["trials_to_95pct"].get<double>() >= 1);
    CHECK(s["mean_best_gflops"].get<double>() <= s["experiment_best_gflops"].get<double>());
  }

  std::map<int, std::vector<double>> curves = read_curves(out / "curves.csv");
  REQUIRE(curves.size() == 12);
  for (const auto& [run, curve] : curves) {
    CHECK(curve.size() == 24);
    CHECK(std::is_sorted(curve.begin(), curve.end()));
  }

  size_t trials = search::RecordsDb::open((out / "records.db").string()).all().size();
  CHECK(trials == 12 * 24);
  options.plots = false;
  CHECK(run_experiment(config, options) == summary);
  CHECK(search::RecordsDb::open((out / "records.db").string()).all().size() == trials);

  ExperimentConfig other = ExperimentConfig::parse("name: other\nworkloads: D7\nmeasure: replay:small_cpu\n", "o.yaml");
  CHECK_THROWS_WITH(run_experiment(other, options), Catch::Contains("holds the results of experiment 'replay_smoke'"));
}

TEST_CASE("an experiment with a final selection reports each run's choice", "[experiments][runner]") {
  test::ScratchDir dir;
  ExperimentConfig config = ExperimentConfig::parse(
      "name: chosen\nworkloads: [D7, C9]\ntrials: 8\nseeds: [0, 1]\nmeasure: replay:small_cpu\nselect: 2\n", "c.yaml");
  RunnerOptions options;
  options.out_dir = dir.file("out");
  options.plots = false;
  nlohmann::json summary = run_experiment(config, options);
  REQUIRE(summary.size() == 2);
  search::RecordedSet set = search::RecordedSet::load(search::resolve_recorded_set("small_cpu"));
  for (const nlohmann::json& s : summary) {
    const nlohmann::json& chosen = s["chosen"];
    REQUIRE(chosen.is_object());
    CHECK(chosen["runs"] == 2);
    // Replay answers exactly, and the candidates include each run's best: the choice is never slower.
    CHECK(chosen["mean_gflops"].get<double>() >= s["mean_best_gflops"].get<double>() * (1 - 1e-9));
    CHECK(chosen["speedup"].get<double>() ==
          Approx(chosen["mean_gflops"].get<double>() / s["baseline"]["gflops"].get<double>()));
  }
  std::vector<search::SelectionRecord> choices =
      search::RecordsDb::open((fs::path(options.out_dir) / "records.db").string()).chosen_per_task();
  CHECK(choices.size() == 2);
  std::ifstream md(fs::path(options.out_dir) / "summary.md");
  std::stringstream text;
  text << md.rdbuf();
  CHECK_THAT(text.str(), Catch::Contains("## Final selection"));
  // The speedups of a replay are of recorded numbers over a recorded baseline, and the summary says so.
  CHECK_THAT(text.str(), Catch::Contains("recorded set (small_cpu)") &&
                             Catch::Contains("compares recorded numbers with a recorded baseline"));
}

TEST_CASE("trials to 95% count against the best run of the same workload and target", "[experiments][runner]") {
  ExperimentConfig config;
  for (const char* target : {"llvm_cpu -isa=avx512", "llvm_cpu -isa=avx2"}) {
    Configuration c;
    c.workload = "C6";
    c.target = target;
    c.label = target;
    config.configurations.push_back(c);
  }
  // The AVX2 run reaches its own best (half the AVX-512 run's) at trial 3.
  std::vector<RunResult> runs(2);
  runs[0].spec.configuration = 0;
  runs[0].curve = {100, 400, 400, 400};
  runs[1].spec.configuration = 1;
  runs[1].curve = {100, 150, 200, 200};
  nlohmann::json summary = summarize(config, runs, {});
  REQUIRE(summary.size() == 2);
  CHECK(summary[0]["trials_to_95pct"].get<double>() == 2);
  CHECK(summary[1]["trials_to_95pct"].get<double>() == 3);
  CHECK(summary[1]["reached_95pct"].get<int64_t>() == 1);
}

TEST_CASE("a model experiment over rounds alternates the order and takes each round's ratio",
          "[experiments][runner][models]") {
  test::ScratchDir dir;
  std::string model = dir.file("m.onnx");
  std::ofstream(model) << "x";  // loading checks only that the model exists
  ExperimentConfig config = ExperimentConfig::parse(
      "name: r\nworkloads: model:" + model + "\ngraph_passes: [none, \"\", \"-fuse\"]\nthreads: 1\nrounds: 4\n",
      "r.yaml");
  REQUIRE(config.measure.rounds == 4);
  // A machine that slows down every call: the reference always 10 ms at its own moment, "all"
  // half of it and "-fuse" 0.8 of it, times the slowdown; a round's ratios stay 2 and 1.25 while
  // the times themselves drift.
  std::vector<std::string> order;
  double slowdown = 1;
  RunnerOptions options;
  options.out_dir = dir.file("out");
  options.plots = false;
  options.measure_model = [&](const ModelConfiguration& c, int) {
    order.push_back(c.label);
    double factor = c.graph_passes == "plan_memory" ? 1 : c.graph_passes.empty() ? 0.5 : 0.8;
    nlohmann::json r = {{"tessel_ms", 10 * factor * slowdown}, {"baseline_ms", 20 * slowdown}, {"correct", true}};
    r["speedup"] = r["baseline_ms"].get<double>() / r["tessel_ms"].get<double>();
    slowdown *= 1.1;
    return r;
  };
  nlohmann::json models = run_experiment(config, options)["models"];
  std::vector<std::string> forward = {"passes=none threads=1", "passes=all threads=1", "passes=-fuse threads=1"};
  std::vector<std::string> expected;
  for (int round = 0; round < 4; ++round)
    for (size_t k = 0; k < 3; ++k) expected.push_back(forward[round % 2 == 0 ? k : 2 - k]);
  CHECK(order == expected);
  REQUIRE(models.size() == 3);
  CHECK(models[0]["reference"] == true);
  CHECK(models[0]["vs_reference"].get<double>() == Approx(1));
  // Each round's ratio carries the slowdown between its two calls: the reference runs first in
  // rounds 1 and 3 and last in 2 and 4, so the ratios of "all" are 2 / 1.1 and 2 x 1.1 in turn,
  // and their median, 2.009, is close to the true 2, as neither order alone would be.
  CHECK(models[1]["vs_reference"].get<double>() == Approx((2 / 1.1 + 2 * 1.1) / 2));
  CHECK(models[1]["vs_reference_low"].get<double>() == Approx(2 / 1.1));
  CHECK(models[1]["vs_reference_high"].get<double>() == Approx(2 * 1.1));
  CHECK(models[1]["round_tessel_ms"].size() == 4);
  CHECK(models[2]["vs_reference"].get<double>() == Approx((1.25 / 1.21 + 1.25 * 1.21) / 2));
  // Tessel's time is the rounds' median, as is the speedup over libtorch: "all" ran 5 ms at
  // slowdowns 1.1, 1.1^4, 1.1^7 and 1.1^10 (its calls 2, 5, 8, 11).
  CHECK(models[1]["tessel_ms"].get<double>() == Approx(5 * (std::pow(1.1, 4) + std::pow(1.1, 7)) / 2));
  CHECK(models[1]["speedup"].get<double>() == Approx(4));
  CHECK(models[1]["correct"] == true);
  std::ifstream md(fs::path(options.out_dir) / "summary.md");
  std::stringstream text;
  text << md.rdbuf();
  CHECK(text.str().find("Medians of 4 rounds") != std::string::npos);
}
