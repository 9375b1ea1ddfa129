// The "rl" strategy (policy gradient over knob choices, libtorch): it learns, on a synthetic
// objective over the real gemm:256 template space, to beat random search; it never proposes a
// configuration twice and covers a small space; it repeats itself under a seed; listing it does
// not load libtorch; its parameters and the loading of libtessel_torch.so fail with messages that
// say what to do.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "search/strategies/search_strategy.h"
#include "support/error.h"
#include "support/registry.h"
#include "support/torch_library.h"
#include "tests/search/search_test_util.h"

using namespace tessel;
using namespace tessel::search;

namespace {

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

// A deterministic landscape over knob choices: each knob has a hidden best choice, and the
// throughput falls with the distance from it; one pair of knobs interacts, and about one
// configuration in eleven fails, so the strategy sees structure, interactions and failures.
TrialOutcome synthetic_measurement(const Task& task, const Candidate& c) {
  const ConfigSpace& space = task.knob_space("the rl tests");
  uint64_t index = c.index();
  if (mix(index) % 11 == 0) return {c, false, 0};
  std::vector<size_t> choices = space.decode(index);
  double score = 1;
  for (size_t k = 0; k < choices.size(); ++k) {
    size_t size = space.knobs()[k].size();
    if (size < 2) continue;
    size_t target = mix(k + 7) % size;
    double distance = std::abs(static_cast<double>(choices[k]) - static_cast<double>(target)) / (size - 1);
    score *= 1 - 0.7 * distance;
  }
  if (choices.size() > 1 && (choices[0] + choices[1]) % 2 == 0) score *= 1.25;
  return {c, true, 100 * score};
}

// Best GFLOP/s after `trials` trials in batches of 8.
double best_after(const std::string& strategy_name, const Task& task, int seed, size_t trials) {
  auto strategy = Registry<SearchStrategy>::instance().create(strategy_name, {{"seed", seed}});
  strategy->bind(task);
  double best = 0;
  for (size_t done = 0; done < trials;) {
    std::vector<TrialOutcome> outcomes;
    for (const Candidate& c : strategy->next_batch(std::min<size_t>(8, trials - done)))
      outcomes.push_back(synthetic_measurement(task, c));
    for (const TrialOutcome& o : outcomes) best = std::max(best, o.gflops);
    strategy->update(outcomes);
    done += outcomes.size();
  }
  return best;
}

// Whether libtorch is mapped into this process.
bool libtorch_loaded() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("libtorch") != std::string::npos) return true;
  return false;
}

double mean_best(const std::string& strategy_name, const Task& task, size_t trials, int seeds) {
  double sum = 0;
  for (int seed = 0; seed < seeds; ++seed) sum += best_after(strategy_name, task, seed, trials);
  return sum / seeds;
}

}  // namespace

TEST_CASE("rl beats random search on a synthetic objective", "[search][rl]") {
  Task task = Task::create("gemm:256", "template");
  INFO("space of " << task.space().size() << " configurations");
  REQUIRE(task.space().size() > 1000);
  constexpr size_t kTrials = 96;
  constexpr int kSeeds = 5;
  double random_mean = mean_best("random", task, kTrials, kSeeds);
  double rl_mean = mean_best("rl", task, kTrials, kSeeds);
  CHECK(rl_mean > random_mean);
  // Not only on average: the worst rl seed beats random's mean.
  double rl_worst = 1e300;
  for (int seed = 0; seed < kSeeds; ++seed) rl_worst = std::min(rl_worst, best_after("rl", task, seed, kTrials));
  CHECK(rl_worst > random_mean);
}

TEST_CASE("rl never proposes a configuration twice and covers a small space", "[search][rl]") {
  Task task = Task::create(test::kTinyGemm, "template");
  auto strategy = Registry<SearchStrategy>::instance().create("rl", {{"seed", 3}});
  strategy->bind(task);
  std::vector<Candidate> proposed;
  for (std::vector<Candidate> batch; !(batch = strategy->next_batch(10)).empty();) {
    CHECK(batch.size() <= 10);
    std::vector<TrialOutcome> outcomes;
    for (const Candidate& c : batch) outcomes.push_back(synthetic_measurement(task, c));
    strategy->update(outcomes);
    proposed.insert(proposed.end(), batch.begin(), batch.end());
  }
  std::set<Candidate> distinct(proposed.begin(), proposed.end());
  CHECK(distinct.size() == proposed.size());
  CHECK(proposed.size() == task.space().size());
}

TEST_CASE("rl skips configurations measured before", "[search][rl]") {
  Task task = Task::create(test::kTinyGemm, "template");
  auto strategy = Registry<SearchStrategy>::instance().create("rl");
  strategy->bind(task);
  std::vector<TrialOutcome> known;
  for (uint64_t i = 0; i < task.space().size(); i += 2)
    known.push_back(synthetic_measurement(task, Candidate::from_index(i)));
  strategy->update(known);  // the policy trains on them too
  for (std::vector<Candidate> batch; !(batch = strategy->next_batch(16)).empty();) {
    for (const Candidate& c : batch) CHECK(c.index() % 2 == 1);
    std::vector<TrialOutcome> outcomes;
    for (const Candidate& c : batch) outcomes.push_back(synthetic_measurement(task, c));
    strategy->update(outcomes);
  }
}

TEST_CASE("rl repeats itself under the same seed", "[search][rl]") {
  Task task = Task::create("gemm:256", "template");
  auto run = [&](int seed) {
    auto strategy = Registry<SearchStrategy>::instance().create("rl", {{"seed", seed}});
    strategy->bind(task);
    std::vector<Candidate> all;
    for (int round = 0; round < 4; ++round) {
      std::vector<Candidate> batch = strategy->next_batch(8);
      std::vector<TrialOutcome> outcomes;
      for (const Candidate& c : batch) outcomes.push_back(synthetic_measurement(task, c));
      strategy->update(outcomes);
      all.insert(all.end(), batch.begin(), batch.end());
    }
    return all;
  };
  std::vector<Candidate> first = run(5);
  CHECK(first.size() == 32);
  CHECK(run(5) == first);
  CHECK(run(6) != first);
}

TEST_CASE("rl parameters are checked before libtorch is loaded", "[search][rl]") {
  auto& registry = Registry<SearchStrategy>::instance();
  CHECK_THROWS_WITH(registry.create("rl", {{"clip", 0.0}}), Catch::Contains("clip"));
  CHECK_THROWS_WITH(registry.create("rl", {{"learning_rate", -1.0}}), Catch::Contains("learning_rate"));
  CHECK_THROWS_WITH(registry.create("rl", {{"updates", 0}}), Catch::Contains("updates"));
  CHECK_THROWS_WITH(registry.create("rl", {{"gamma", 0.9}}), Catch::Contains("gamma"));
}

TEST_CASE("a library that cannot be loaded is a clear error", "[search][rl]") {
  LazyLibrary missing("/nonexistent/libtessel_torch.so", "the rl strategy", "tessel_torch");
  CHECK_THROWS_AS(missing.symbol("tessel_create_rl_strategy"), UserError);
  CHECK_THROWS_WITH(missing.symbol("tessel_create_rl_strategy"),
                    Catch::Contains("/nonexistent/libtessel_torch.so") && Catch::Contains("the rl strategy") &&
                        Catch::Contains("build the tessel_torch target"));
  // A library that loads but is out of date (here libtessel.so itself, which lacks the factory).
  LazyLibrary stale(std::string(TESSEL_BINARY_DIR) + "/libtessel.so", "the rl strategy", "tessel_torch");
  CHECK_THROWS_WITH(stale.symbol("tessel_create_rl_strategy"),
                    Catch::Contains("no symbol tessel_create_rl_strategy") && Catch::Contains("rebuild"));
  // The real one resolves the symbol that the rl factory uses.
  CHECK(torch_library().symbol("tessel_create_rl_strategy") != nullptr);
}

// Run by the test below in a fresh process, where nothing has loaded libtorch yet.
TEST_CASE("(fresh process) rl is listed without libtorch, which loads on creation", "[.rl_fresh_process]") {
  REQUIRE_FALSE(libtorch_loaded());
  CHECK(Registry<SearchStrategy>::instance().info("rl").params.size() > 1);
  CHECK_THROWS(Registry<SearchStrategy>::instance().create("rl", {{"hidden", 0}}));
  CHECK_FALSE(libtorch_loaded());
  auto strategy = Registry<SearchStrategy>::instance().create("rl");
  CHECK(libtorch_loaded());
}

TEST_CASE("libtorch loads only when an rl strategy is created", "[search][rl]") {
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string command = "'" + self + "' '[.rl_fresh_process]' > /dev/null";
  int status = std::system(command.c_str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
