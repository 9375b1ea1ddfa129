// Search strategies: every registered strategy proposes each configuration at most once, never
// more than the space holds, stops when it is exhausted, skips configurations known from earlier
// records, and repeats itself exactly under the same seed.
#include <catch2/catch.hpp>

#include <set>

#include "search/strategies/search_strategy.h"
#include "support/registry.h"
#include "tests/search/search_test_util.h"

using namespace tessel;
using namespace tessel::search;

namespace {

const std::vector<std::string> kStrategies = {"random", "grid", "annealing", "genetic"};

// A made-up performance landscape with failures, so strategies see both kinds of outcome.
TrialOutcome fake_measurement(uint64_t index) {
  Candidate c = Candidate::from_index(index);
  if (index % 7 == 3) return {c, false, 0};
  return {c, true, 1.0 + static_cast<double>((index * 2654435761u) % 1000)};
}

std::vector<uint64_t> indices(const std::vector<Candidate>& batch) {
  std::vector<uint64_t> out;
  for (const Candidate& c : batch) out.push_back(c.index());
  return out;
}

std::vector<uint64_t> drain(SearchStrategy& strategy, size_t batch) {
  std::vector<uint64_t> all;
  for (std::vector<uint64_t> b; !(b = indices(strategy.next_batch(batch))).empty();) {
    CHECK(b.size() <= batch);
    std::vector<TrialOutcome> outcomes;
    for (uint64_t i : b) outcomes.push_back(fake_measurement(i));
    strategy.update(outcomes);
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

}  // namespace

TEST_CASE("strategies cover the space without duplicates", "[search][strategies]") {
  Task task = Task::create(test::kTinyGemm, "template");
  for (const std::string& name : kStrategies) {
    INFO(name);
    auto strategy = Registry<SearchStrategy>::instance().create(name, {{"seed", 11}});
    strategy->bind(task);
    std::vector<uint64_t> proposed = drain(*strategy, 10);
    std::set<uint64_t> distinct(proposed.begin(), proposed.end());
    CHECK(distinct.size() == proposed.size());
    CHECK(proposed.size() == task.space().size());
    CHECK(*distinct.rbegin() < task.space().size());
    CHECK(strategy->next_batch(4).empty());
  }
}

TEST_CASE("strategies skip configurations measured before", "[search][strategies]") {
  Task task = Task::create(test::kTinyGemm, "template");
  for (const std::string& name : kStrategies) {
    INFO(name);
    auto strategy = Registry<SearchStrategy>::instance().create(name);
    strategy->bind(task);
    std::vector<TrialOutcome> known;
    for (uint64_t i = 0; i < task.space().size(); i += 2) known.push_back(fake_measurement(i));
    strategy->update(known);
    CHECK(strategy->remaining() == task.space().size() - known.size());
    for (uint64_t i : drain(*strategy, 16)) CHECK(i % 2 == 1);
  }
}

TEST_CASE("the same seed gives the same proposals", "[search][strategies]") {
  Task task = Task::create("gemm:256", "template");
  for (const std::string& name : kStrategies) {
    INFO(name);
    auto first = Registry<SearchStrategy>::instance().create(name, {{"seed", 5}});
    auto second = Registry<SearchStrategy>::instance().create(name, {{"seed", 5}});
    first->bind(task);
    second->bind(task);
    for (int round = 0; round < 4; ++round) {
      std::vector<uint64_t> a = indices(first->next_batch(8)), b = indices(second->next_batch(8));
      CHECK(a == b);
      std::vector<TrialOutcome> outcomes;
      for (uint64_t i : a) outcomes.push_back(fake_measurement(i));
      first->update(outcomes);
      second->update(outcomes);
    }
  }
}

TEST_CASE("strategy parameters are checked", "[search][strategies]") {
  CHECK_THROWS_WITH(Registry<SearchStrategy>::instance().create("genetic", {{"population", 1}}),
                    Catch::Contains("population"));
  CHECK_THROWS_WITH(Registry<SearchStrategy>::instance().create("annealing", {{"cooling", 2.0}}),
                    Catch::Contains("cooling"));
  CHECK_THROWS_WITH(Registry<SearchStrategy>::instance().create("bayes"), Catch::Contains("random"));
}
