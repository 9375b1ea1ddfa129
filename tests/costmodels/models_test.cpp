// Cost models: each learns a known ranking (synthetic features with a known throughput function)
// and ranks held-out random GEMM schedules better than chance (an analytic throughput proxy, not
// hardware data); fits are deterministic for a seed; bad parameters and inputs are refused.
#include <catch2/catch.hpp>

#include <chrono>

#include "costmodels/cost_model.h"
#include "costmodels_test_util.h"
#include "support/error.h"

using namespace tessel;
using namespace tessel::test;

namespace {

const char* const kModels[] = {"xgboost", "mlp", "treegru"};

constexpr int kRandomColumns = 16;

struct Dataset {
  std::vector<ProgramFeatures> x;
  std::vector<double> y;
};

// Random programs whose throughput is a known function of a few flat features and of their tree
// (a root with 1-3 leaves): what a model sees must determine the target. As in real feature
// vectors, most columns are constant: only the first kRandomColumns vary (with all 185 columns
// random noise, the MLP needs ~1000 epochs to reach 0.8 on 400 samples; the trees do not).
Dataset synthetic(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0, 4);
  Dataset d;
  for (int i = 0; i < count; ++i) {
    ProgramFeatures f;
    for (int j = 0; j < kFlatFeatureLength; ++j) f.flat.push_back(j < kRandomColumns ? u(rng) : 0.0f);
    int leaves = std::uniform_int_distribution<int>(1, 3)(rng);
    f.tree.nodes.push_back(LoopTreeNode{std::vector<float>(kTreeNodeFeatures, 0.0f), {}});
    double leaf_sum = 0;
    for (int l = 0; l < leaves; ++l) {
      std::vector<float> leaf(kTreeNodeFeatures);
      for (float& v : leaf) v = u(rng);
      leaf_sum += leaf[3] * (leaf[4] > 2 ? 2 : 1);
      f.tree.nodes[0].children.push_back(static_cast<int>(f.tree.nodes.size()));
      f.tree.nodes.push_back(LoopTreeNode{leaf, {}});
    }
    // The flat and the tree targets agree, so one throughput serves every model.
    f.flat[0] = static_cast<float>(leaf_sum);
    d.y.push_back(1 + f.flat[0] + 0.5 * f.flat[5] * (f.flat[9] > 2 ? 1 : 0));
    d.x.push_back(std::move(f));
  }
  return d;
}

Dataset gemm_schedules(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  Dataset d;
  for (int i = 0; i < count; ++i) {
    GemmKnobs knobs = random_knobs(rng);
    d.x.push_back(extract_features(lower_gemm(64, knobs)));
    d.y.push_back(gemm_proxy_throughput(knobs));
  }
  return d;
}

double held_out_correlation(const std::string& model_name, const Dataset& train, const Dataset& test,
                            const nlohmann::json& params = nullptr) {
  auto model = Registry<CostModel>::instance().create(model_name, params);
  auto start = std::chrono::steady_clock::now();
  model->fit(train.x, train.y);
  auto fitted = std::chrono::steady_clock::now();
  std::vector<double> scores = model->predict(test.x);
  auto predicted = std::chrono::steady_clock::now();
  double rho = spearman(scores, test.y);
  using Ms = std::chrono::duration<double, std::milli>;
  double fit_ms = Ms(fitted - start).count(), predict_ms = Ms(predicted - fitted).count();
  WARN(model_name << ": fit " << fit_ms << " ms on " << train.x.size() << ", predict " << predict_ms << " ms on "
                  << test.x.size() << ", spearman " << rho);
  return rho;
}

}  // namespace

TEST_CASE("cost models: every model is registered with its parameters", "[costmodels]") {
  auto names = Registry<CostModel>::instance().names();
  for (const char* m : kModels) CHECK(std::find(names.begin(), names.end(), m) != names.end());
  CHECK(Registry<CostModel>::instance().info("xgboost").params.size() == 8);
}

TEST_CASE("cost models: learn a known ranking of synthetic programs", "[costmodels]") {
  Dataset train = synthetic(400, 1), test = synthetic(200, 2);
  for (const char* m : kModels) {
    INFO(m);
    CHECK(held_out_correlation(m, train, test) > 0.8);
  }
  CHECK(held_out_correlation("xgboost", train, test, {{"objective", "reg:squarederror"}}) > 0.8);
  CHECK(held_out_correlation("mlp", train, test, {{"loss", "listwise"}}) > 0.8);
  CHECK(held_out_correlation("mlp", train, test, {{"loss", "mse"}}) > 0.8);
}

TEST_CASE("cost models: rank held-out GEMM schedules from their program features", "[costmodels]") {
  Dataset train = gemm_schedules(200, 11), test = gemm_schedules(100, 12);
  for (const char* m : kModels) {
    INFO(m);
    CHECK(held_out_correlation(m, train, test) > 0.5);
  }
}

TEST_CASE("cost models: a fixed seed gives the same predictions", "[costmodels]") {
  Dataset train = synthetic(100, 5), test = synthetic(30, 6);
  for (const char* m : kModels) {
    INFO(m);
    auto a = Registry<CostModel>::instance().create(m, {{"seed", 7}});
    auto b = Registry<CostModel>::instance().create(m, {{"seed", 7}});
    a->fit(train.x, train.y);
    b->fit(train.x, train.y);
    CHECK(a->predict(test.x) == b->predict(test.x));
  }
}

TEST_CASE("cost models: bad parameters and inputs are user errors", "[costmodels]") {
  auto& registry = Registry<CostModel>::instance();
  auto message = [](auto action) {
    try {
      action();
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message([&] { registry.create("xgboost", {{"objective", "rank:ndcgg"}}); }),
             Catch::Contains("valid values: rank:pairwise, reg:squarederror"));
  CHECK_THAT(message([&] { registry.create("mlp", {{"loss", "hinge"}}); }),
             Catch::Contains("valid values: pairwise, listwise, mse"));
  CHECK_THAT(message([&] { registry.create("treegru", {{"epochs", 0}}); }), Catch::Contains("epochs"));
  CHECK_THAT(message([&] { registry.create("xgboost", {{"depth", 3}}); }), Catch::Contains("valid parameters"));
  CHECK_THAT(message([&] { registry.create("gbt"); }), Catch::Contains("valid names"));
  Dataset d = synthetic(4, 1);
  for (const char* m : kModels) {
    auto model = registry.create(m);
    CHECK_FALSE(model->trained());
    CHECK_THAT(message([&] { model->predict(d.x); }), Catch::Contains("before fit"));
    CHECK_THAT(message([&] { model->fit(d.x, {1, 2}); }), Catch::Contains("one throughput per program"));
    CHECK_THAT(message([&] { model->fit(d.x, {1, 2, -1, 3}); }), Catch::Contains(">= 0"));
    model->fit(d.x, d.y);
    CHECK(model->trained());
  }
}

TEST_CASE("cost models: xgboost's feature ablation hides the named features from the trees", "[costmodels]") {
  // The synthetic target is a function of flat features 0, 5 and 9 only (float_ops, bodies,
  // parallel_fraction): with those hidden the model cannot rank; with others hidden it still can.
  Dataset train = synthetic(300, 21), test = synthetic(200, 22);
  const std::vector<std::string>& names = flat_feature_names();
  REQUIRE(names[0] == "float_ops");
  REQUIRE(names[5] == "bodies");
  REQUIRE(names[9] == "parallel_fraction");
  double informative_hidden =
      held_out_correlation("xgboost", train, test, {{"drop_features", "float_ops,bodies,parallel_fraction"}});
  double others_hidden = held_out_correlation("xgboost", train, test, {{"drop_features", "level,buffer"}});
  CHECK(std::abs(informative_hidden) < 0.3);
  CHECK(others_hidden > 0.8);
}
