// The model-based strategy and its factory: on a synthetic objective that depends only on the
// lowered program (so a cost model can learn it) it finds the optimum in fewer trials than random
// search, it repeats itself under a seed, it never proposes a configuration twice, transfer data
// reaches the model before the first measurement, and the factory rejects what it must.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "costmodels/features.h"
#include "search/strategies/transfer.h"
#include "search/strategy_factory.h"
#include "support/error.h"
#include "tests/search/search_test_util.h"

using namespace tessel;
using namespace tessel::search;

namespace {

constexpr const char* kGemm16 = "gemm:16";  // 1800 configurations, each lowers in well under a ms
constexpr const char* kDepthwise = "depthwise:1,8,8,8,3,1,1";

// A performance landscape over program features: the closer a program's features to those of a
// hidden target configuration, the faster it "runs". Failures where the target's first knob
// is the last choice, so the strategy sees both kinds of outcome.
class SyntheticObjective {
 public:
  SyntheticObjective(const Task& task, uint64_t target) : task_(task) {
    target_ = features(target);
    for (uint64_t i = 0; i < task.space().size(); ++i) best_ = std::max(best_, gflops(i));
  }
  double gflops(uint64_t index) const {
    const ConfigSpace& space = task_.knob_space("the synthetic objective");
    if (space.decode(index)[0] + 1 == space.knobs()[0].size()) return 0;
    std::vector<float> f = features(index);
    double d = 0;
    for (size_t k = 0; k < f.size(); ++k) d += (f[k] - target_[k]) * (f[k] - target_[k]);
    return 100.0 / (1.0 + d);
  }
  TrialOutcome measure(const Candidate& c) const {
    double g = gflops(c.index());
    return {c, g > 0, g};
  }
  double best() const { return best_; }

 private:
  std::vector<float> features(uint64_t index) const {
    return extract_features(task_.lower(Candidate::from_index(index))).flat;
  }
  const Task& task_;
  std::vector<float> target_;
  double best_ = 0;
};

std::unique_ptr<SearchStrategy> make(const std::string& strategy, int64_t seed, const std::string& model = "xgboost") {
  return create_strategy(strategy, nullptr, model, {{"rounds", 30}}, seed);
}

// Trials until a configuration of the objective's best value is measured (or `budget` if never).
int64_t trials_to_optimum(SearchStrategy& strategy, const SyntheticObjective& objective, int64_t budget) {
  int64_t trials = 0;
  while (trials < budget) {
    std::vector<TrialOutcome> outcomes;
    for (const Candidate& c : strategy.next_batch(8)) {
      outcomes.push_back(objective.measure(c));
      ++trials;
      if (outcomes.back().gflops >= objective.best()) return trials;
    }
    strategy.update(outcomes);
  }
  return budget;
}

// Every batch the strategy proposes until `trials` configurations are measured.
std::vector<std::vector<uint64_t>> batches(SearchStrategy& strategy, const SyntheticObjective& objective, size_t trials) {
  std::vector<std::vector<uint64_t>> out;
  for (size_t done = 0; done < trials;) {
    std::vector<Candidate> batch = strategy.next_batch(8);
    if (batch.empty()) break;
    std::vector<TrialOutcome> outcomes;
    std::vector<uint64_t> indices;
    for (const Candidate& c : batch) {
      outcomes.push_back(objective.measure(c));
      indices.push_back(c.index());
    }
    strategy.update(outcomes);
    done += batch.size();
    out.push_back(indices);
  }
  return out;
}

}  // namespace

TEST_CASE("model_based finds the optimum of a learnable objective faster than random", "[search][model_based]") {
  Task task = Task::create(kGemm16, "template");
  SyntheticObjective objective(task, 1234);
  int64_t model_total = 0, random_total = 0;
  constexpr int64_t kBudget = 600;
  for (int64_t seed : {0, 1, 2}) {
    auto model_based = make("model_based", seed);
    auto random = make("random", seed);
    model_based->bind(task);
    random->bind(task);
    int64_t m = trials_to_optimum(*model_based, objective, kBudget);
    int64_t r = trials_to_optimum(*random, objective, kBudget);
    INFO("seed " << seed << ": model_based " << m << " trials, random " << r);
    model_total += m;
    random_total += r;
  }
  INFO("model_based " << model_total << " trials in all, random " << random_total);
  CHECK(model_total * 2 < random_total);
}

TEST_CASE("model_based repeats itself under a seed, with any number of threads", "[search][model_based]") {
  Task task = Task::create(kGemm16, "template");
  SyntheticObjective objective(task, 77);
  auto run = [&](int64_t seed, int64_t threads) {
    auto s = create_strategy("model_based", {{"threads", threads}}, "xgboost", {{"rounds", 30}}, seed);
    s->bind(task);
    return batches(*s, objective, 48);
  };
  std::vector<std::vector<uint64_t>> first = run(5, 2);
  CHECK(first.size() == 6);
  CHECK(first == run(5, 2));
  CHECK(first == run(5, 1));  // threads only share the lowering work
  CHECK(first != run(6, 2));
}

TEST_CASE("model_based never proposes a configuration twice and exhausts the space", "[search][model_based]") {
  Task task = Task::create(test::kTinyGemm, "template");
  SyntheticObjective objective(task, 10);
  auto s = create_strategy("model_based", {{"epsilon", 0.0}, {"chains", 4}, {"steps", 8}}, "xgboost",
                           {{"rounds", 10}}, 3);
  s->bind(task);
  std::vector<uint64_t> all;
  for (const auto& batch : batches(*s, objective, task.space().size() + 8)) all.insert(all.end(), batch.begin(), batch.end());
  std::set<uint64_t> distinct(all.begin(), all.end());
  CHECK(distinct.size() == all.size());
  CHECK(all.size() == task.space().size());
  CHECK(s->next_batch(8).empty());
}

TEST_CASE("the strategy factory wires cost models and rejects bad choices", "[search][model_based]") {
  auto message_of = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(message_of([] { create_strategy("model_based", nullptr, "none", nullptr, 0); }),
             Catch::Contains("--cost-model") && Catch::Contains("xgboost"));
  CHECK_THAT(message_of([] { create_strategy("no_such", nullptr, "xgboost", nullptr, 0); }),
             Catch::Contains("no_such") && Catch::Contains("model_based") && Catch::Contains("random"));
  CHECK_THAT(message_of([] { create_strategy("model_based", nullptr, "no_model", nullptr, 0); }),
             Catch::Contains("no_model") && Catch::Contains("xgboost"));
  CHECK_THAT(message_of([] { create_strategy("model_based", {{"chains", 0}}, "xgboost", nullptr, 0); }),
             Catch::Contains("chains"));
  CHECK_THAT(message_of([] { create_strategy("model_based", {{"no_param", 1}}, "xgboost", nullptr, 0); }),
             Catch::Contains("no_param"));
  CHECK_THAT(message_of([] { create_strategy("model_based", nullptr, "xgboost", nullptr, 0, "/nonexistent/runs.db"); }),
             Catch::Contains("/nonexistent/runs.db"));

  // A cost model given to a strategy without one is ignored, not even created.
  StrategyChoice random{"random", nullptr, "xgboost", {{"no_such_param", 1}}, 4, ""};
  CHECK_FALSE(create_strategy(random)->uses_cost_model());
  CHECK(effective_cost_model(random) == "none");
  CHECK(run_strategy_label(random) == "random");
  // ... and the user is told so (tune warns with it); a cost model that is used, or none, is no news.
  CHECK(ignored_cost_model(random) ==
        "strategy 'random' ranks no candidates with a cost model, so cost model 'xgboost' is ignored; a strategy "
        "that uses one is model_based");
  CHECK(ignored_cost_model({"random", nullptr, "none", nullptr, 4, ""}) == "");
  CHECK(ignored_cost_model({"model_based", nullptr, "xgboost", nullptr, 4, ""}) == "");
  // Built-in plugins add nothing to a run key; plugins loaded from libraries their builds' hashes.
  CHECK(run_plugins_key(random, "template", "llvm_cpu") == "");
  StrategyChoice guided{"model_based", nullptr, "xgboost", nullptr, 4, ""};
  CHECK(create_strategy(guided)->uses_cost_model());
  CHECK(effective_cost_model(guided) == "xgboost");
  CHECK(run_strategy_label(guided) == "model_based+xgboost");
  guided.transfer_from = "runs.db";
  CHECK(run_strategy_label(guided) == "model_based+xgboost+transfer");
  // Runs differing only in parameters are different runs; the seed is the run key's own field.
  guided.strategy_params = {{"epsilon", 0.2}, {"seed", 4}};
  guided.cost_model_params = {{"rounds", 50}};
  CHECK(run_strategy_label(guided) == "model_based{epsilon=0.2}+xgboost{rounds=50}+transfer");
}

namespace {

TrialRecord trial(const Task& task, const std::string& workload, const std::string& space, uint64_t index, double us) {
  TrialRecord r;
  r.run = {workload, parse_workload(workload).key(), task.target().key(), space, "random", 0};
  r.candidate = Candidate::from_index(index);
  r.config = task.space().to_json(r.candidate);
  r.result.status = us > 0 ? TrialStatus::Ok : TrialStatus::Crash;
  if (us > 0) r.result.timing.median_us = us;
  r.gflops = us > 0 ? 1000.0 / us : 0;
  return r;
}

// A database with trials of an other workload (gemm:4,8,2) beside ones transfer must leave out:
// the target itself, the target under another name, another space and another operator.
void fill_transfer_db(RecordsDb& db) {
  Task other = Task::create(test::kTinyGemm, "template");
  Task target = Task::create(kGemm16, "template");
  Task depthwise = Task::create(kDepthwise, "template");
  std::vector<TrialRecord> records = {
      trial(other, test::kTinyGemm, "template", 3, 10),   trial(other, test::kTinyGemm, "template", 5, 40),
      trial(other, test::kTinyGemm, "template", 3, 5),    // measured again, faster: counts as 200 GFLOP/s
      trial(other, test::kTinyGemm, "template", 7, 0),    // a crash
      trial(other, test::kTinyGemm, "polyhedral", 9, 1),  // another space
      trial(target, kGemm16, "template", 11, 1),          trial(target, "gemm:16,16,16", "template", 12, 1),
      trial(depthwise, kDepthwise, "template", 2, 1)};
  TrialRecord foreign = trial(other, test::kTinyGemm, "template", 8, 1);
  foreign.config = {{"no_such_knob", 1}};  // recorded by some other version of the space
  records.push_back(foreign);
  for (size_t i = 0; i < records.size(); ++i) records[i].trial = static_cast<int64_t>(i + 1);
  db.append(records);
}

// Records what it is trained on; scores programs by their first feature.
class SpyModel : public CostModel {
 public:
  explicit SpyModel(std::vector<size_t>* fits) : fits_(fits) {}
  std::string name() const override { return "spy"; }
  void do_fit(const std::vector<ProgramFeatures>& x, const std::vector<double>&) override { fits_->push_back(x.size()); }
  std::vector<double> do_predict(const std::vector<ProgramFeatures>& x) const override {
    std::vector<double> out;
    for (const ProgramFeatures& f : x) out.push_back(f.flat[0]);
    return out;
  }
  bool trained() const override { return !fits_->empty(); }

 private:
  std::vector<size_t>* fits_;
};

}  // namespace

TEST_CASE("transfer data holds the other workloads of the operator and space, normalized", "[search][transfer]") {
  test::ScratchDir dir;
  RecordsDb db = RecordsDb::open(dir.file("runs.db"));
  fill_transfer_db(db);
  Task target = Task::create(kGemm16, "template");
  TrainingData data = load_transfer_data(db, target);
  CHECK(data.workloads == std::vector<std::string>{test::kTinyGemm});
  REQUIRE(data.size() == 3);  // configurations 3, 5, 7
  CHECK(data.throughput == std::vector<double>{1.0, 25.0 / 200.0, 0.0});
  Task other = Task::create(test::kTinyGemm, "template");
  CHECK(data.features[1].flat == extract_features(other.lower(Candidate::from_index(5))).flat);
  CHECK(load_transfer_data(db, target, 2).size() == 2);
  // The target's own records are never prior data for itself, whatever it is called; the other
  // workload's records under two names are one workload (keyed by what it computes).
  CHECK(load_transfer_data(db, Task::create("gemm:16,16,16", "template")).workloads == data.workloads);
  TrainingData of_target = load_transfer_data(db, other);
  CHECK(of_target.workloads == std::vector<std::string>{kGemm16});
  CHECK(of_target.size() == 2);  // configurations 11 and 12
  CHECK(load_transfer_data(db, Task::create(kDepthwise, "template")).size() == 0);  // no other depthwise
}

TEST_CASE("transfer data trains the model before the first measurement", "[search][transfer]") {
  test::ScratchDir dir;
  {
    RecordsDb db = RecordsDb::open(dir.file("runs.db"));
    fill_transfer_db(db);
  }
  Task task = Task::create(kGemm16, "template");
  std::vector<size_t> fits;
  auto s = Registry<SearchStrategy>::instance().create("model_based", {{"epsilon", 0.0}});
  s->set_cost_model(std::make_unique<SpyModel>(&fits));
  s->set_transfer_source(std::make_shared<const TransferSource>(dir.file("runs.db")));
  s->bind(task);
  std::vector<Candidate> batch = s->next_batch(8);
  CHECK(fits == std::vector<size_t>{3});
  std::vector<TrialOutcome> outcomes;
  for (const Candidate& c : batch) outcomes.push_back({c, true, 1.0});
  s->update(outcomes);
  s->next_batch(8);
  CHECK(fits == std::vector<size_t>{3, 11});

  auto plain = Registry<SearchStrategy>::instance().create("model_based");
  std::vector<size_t> plain_fits;
  plain->set_cost_model(std::make_unique<SpyModel>(&plain_fits));
  plain->bind(task);
  plain->next_batch(8);
  CHECK(plain_fits.empty());  // nothing to learn from yet: a random batch
}

TEST_CASE("a transfer source must be an existing records database", "[search][transfer]") {
  test::ScratchDir dir;
  std::string text = dir.file("notes.txt");
  FILE* f = fopen(text.c_str(), "w");
  fputs("not a database\n", f);
  fclose(f);
  CHECK_THROWS_AS(TransferSource(text), UserError);
  CHECK_THROWS_AS(TransferSource(dir.file("missing.db")), UserError);
}

namespace {

// A cost model that answers with the wrong number of scores, or with scores that are not numbers.
class FaultyModel : public CostModel {
 public:
  enum class Fault { TooFew, Empty, NotFinite };
  explicit FaultyModel(Fault fault) : fault_(fault) {}
  std::string name() const override { return "faulty"; }
  bool trained() const override { return fitted_; }

 protected:
  void do_fit(const std::vector<ProgramFeatures>&, const std::vector<double>&) override { fitted_ = true; }
  std::vector<double> do_predict(const std::vector<ProgramFeatures>& x) const override {
    if (fault_ == Fault::Empty) return {};
    if (fault_ == Fault::TooFew) return std::vector<double>(x.size() / 2, 1.0);
    std::vector<double> scores(x.size(), 1.0);
    scores[x.size() / 2] = std::nan("");
    return scores;
  }

 private:
  Fault fault_;
  bool fitted_ = false;
};

}  // namespace

TEST_CASE("a cost model's wrong answers fail at the interface, naming the model", "[search][model_based]") {
  Task task = Task::create(test::kTinyGemm, "template");
  for (auto fault : {FaultyModel::Fault::TooFew, FaultyModel::Fault::Empty, FaultyModel::Fault::NotFinite}) {
    auto s = Registry<SearchStrategy>::instance().create("model_based", {{"epsilon", 0.0}});
    s->set_cost_model(std::make_unique<FaultyModel>(fault));
    s->bind(task);
    std::vector<TrialOutcome> outcomes;
    for (const Candidate& c : s->next_batch(8)) outcomes.push_back({c, true, 1.0 + static_cast<double>(c.index())});
    s->update(outcomes);
    CHECK_THROWS_WITH(s->next_batch(8), Catch::Contains("cost model 'faulty'") &&
                                            (Catch::Contains("scores for") || Catch::Contains("finite")));
  }
}

TEST_CASE("a cost model is fitted only on valid input", "[search][model_based]") {
  FaultyModel model(FaultyModel::Fault::TooFew);
  std::vector<ProgramFeatures> x(2);
  CHECK_THROWS_WITH(model.predict(x), Catch::Contains("before fit"));
  CHECK_THROWS_WITH(model.fit(x, {1.0}), Catch::Contains("one throughput per program"));
  CHECK_THROWS_WITH(model.fit(x, {1.0, std::nan("")}), Catch::Contains("finite"));
  CHECK_FALSE(model.trained());
  model.fit(x, {1.0, 2.0});
  CHECK(model.predict({}).empty());
}
