// Broken plugins for the tests: a search strategy and a cost model that misbehave on request.
// The environment variable TESSEL_TEST_FAULT chooses the fault ("" or unset: behave):
//   hang_propose, hang_observe   never return from propose / observe (the 2nd call of it)
//   crash_propose                SIGSEGV in the 2nd propose (after one batch was recorded)
//   throw_propose                throw std::out_of_range from the 2nd propose
//   hang_fit                     the cost model never returns from fit
// The strategy proposes random configurations; with the cost model (strategy
// "misbehaving_model_user") it fits the model on what was measured.
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "costmodels/cost_model.h"
#include "search/strategies/search_strategy.h"
#include "support/registry.h"
#include "tests/crash_for_test.h"

namespace {

using tessel::search::SearchStrategy;
using tessel::search::TrialOutcome;

std::string fault() {
  const char* value = std::getenv("TESSEL_TEST_FAULT");
  return value ? value : "";
}

[[noreturn]] void hang() {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

class Misbehaving : public SearchStrategy {
 public:
  Misbehaving(uint64_t seed, bool with_model) : SearchStrategy(seed), with_model_(with_model) {}
  bool uses_cost_model() const override { return with_model_; }

 protected:
  std::vector<tessel::search::Candidate> propose(size_t n) override {
    if (++proposals_ == 2) {
      if (fault() == "hang_propose") hang();
      if (fault() == "crash_propose") tessel::test::segfault_for_test();
      if (fault() == "throw_propose") throw std::out_of_range("index 7 is out of range");
    }
    return random_unvisited(n);
  }

  void observe(const std::vector<TrialOutcome>& outcomes) override {
    if (++observations_ == 2 && fault() == "hang_observe") hang();
    if (!with_model_) return;
    std::vector<tessel::ProgramFeatures> x;
    std::vector<double> y;
    for (const TrialOutcome& o : outcomes) {
      x.push_back(tessel::ProgramFeatures{});
      y.push_back(o.gflops);
    }
    if (!x.empty()) cost_model()->fit(x, y);
  }

 private:
  bool with_model_;
  int proposals_ = 0, observations_ = 0;
};

class StuckModel : public tessel::CostModel {
 public:
  std::string name() const override { return "stuck_model"; }
  void do_fit(const std::vector<tessel::ProgramFeatures>&, const std::vector<double>&) override {
    if (fault() == "hang_fit") hang();
    trained_ = true;
  }
  std::vector<double> do_predict(const std::vector<tessel::ProgramFeatures>& x) const override {
    return std::vector<double>(x.size(), 0.0);
  }
  bool trained() const override { return trained_; }

 private:
  bool trained_ = false;
};

}  // namespace

TESSEL_REGISTER_PLUGIN(tessel::search::SearchStrategy, misbehaving, "random, with the fault TESSEL_TEST_FAULT asks for",
                       std::vector<tessel::ParamSpec>{tessel::search::seed_param()},
                       [](const tessel::PluginParams& p) { return std::make_unique<Misbehaving>(p.get_int("seed"), false); });
TESSEL_REGISTER_PLUGIN(tessel::search::SearchStrategy, misbehaving_model_user, "misbehaving, fitting its cost model",
                       std::vector<tessel::ParamSpec>{tessel::search::seed_param()},
                       [](const tessel::PluginParams& p) { return std::make_unique<Misbehaving>(p.get_int("seed"), true); });
TESSEL_REGISTER_PLUGIN(tessel::CostModel, stuck_model, "a cost model whose fit hangs when TESSEL_TEST_FAULT=hang_fit",
                       std::vector<tessel::ParamSpec>{}, [](const tessel::PluginParams&) {
                         return std::make_unique<StuckModel>();
                       });
