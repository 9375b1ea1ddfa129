// The "annealing" strategy: simulated annealing on measured performance. Each batch holds
// neighbours of the current point (one knob changed); the batch's best becomes the current point
// if it is faster, or with probability exp((g - g_current) / (T · g_current)) if slower, and the
// temperature T cools by a constant factor per batch. Until a first configuration runs correctly,
// batches are random.
#include <cmath>

#include "search/strategies/search_strategy.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

class AnnealingStrategy : public SearchStrategy {
 public:
  AnnealingStrategy(uint64_t seed, double temperature, double cooling)
      : SearchStrategy(seed), temperature_(temperature), cooling_(cooling) {}

 protected:
  std::vector<Candidate> propose(size_t n) override {
    if (current_gflops_ <= 0) return random_unvisited(n);
    // the base fills up with random points when the neighbourhood is used up
    return unvisited_from(n, [&] { return mutate(current_); });
  }

  void observe(const std::vector<TrialOutcome>& outcomes) override {
    const TrialOutcome* best = nullptr;
    for (const TrialOutcome& o : outcomes)
      if (o.ok && (!best || o.gflops > best->gflops)) best = &o;
    if (best && accept(best->gflops)) {
      current_ = best->candidate;
      current_gflops_ = best->gflops;
    }
    temperature_ *= cooling_;
  }

 private:
  bool accept(double gflops) {
    if (gflops >= current_gflops_) return true;
    double p = std::exp((gflops - current_gflops_) / (temperature_ * current_gflops_));
    return std::uniform_real_distribution<double>(0, 1)(rng()) < p;
  }

  double temperature_, cooling_;
  Candidate current_;
  double current_gflops_ = 0;
};

const std::vector<ParamSpec> kParams = {
    {"temperature", ParamType::Float, 0.2, "initial temperature, relative to the current GFLOP/s", Allowed::above(0)},
    {"cooling", ParamType::Float, 0.9, "temperature factor per batch", Allowed::above(0).at_most(1)}};

}  // namespace

TESSEL_REGISTER_PLUGIN(SearchStrategy, annealing, "simulated annealing on measured GFLOP/s (one-knob moves)",
                       kParams, [](const PluginParams& p) {
                         return std::make_unique<AnnealingStrategy>(p.get_int("seed"), p.get_float("temperature"),
                                                                    p.get_float("cooling"));
                       });

}  // namespace tessel::search
