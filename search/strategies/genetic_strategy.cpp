// The "genetic" strategy: the population is the best `population` configurations measured so
// far; each child takes every knob from one of two tournament-chosen parents (uniform crossover)
// and then changes each knob with probability `mutation`. Until two configurations run
// correctly, batches are random.
#include <algorithm>

#include "search/strategies/search_strategy.h"
#include "support/limits.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

class GeneticStrategy : public SearchStrategy {
 public:
  GeneticStrategy(uint64_t seed, int64_t population, double mutation)
      : SearchStrategy(seed), population_(population), mutation_(mutation) {}

 protected:
  std::vector<Candidate> propose(size_t n) override {
    std::vector<TrialOutcome> parents = fittest();
    if (parents.size() < 2) return random_unvisited(n);
    return unvisited_from(n, [&] {
      // The second parent is drawn first: the order the generator has always been used in.
      const TrialOutcome& second = pick(parents);
      const TrialOutcome& first = pick(parents);
      return space().perturb(space().crossover(first.candidate, second.candidate, rng()), mutation_, rng());
    });
  }

  void observe(const std::vector<TrialOutcome>& outcomes) override {
    for (const TrialOutcome& o : outcomes)
      if (o.ok) measured_.push_back(o);
  }

 private:
  std::vector<TrialOutcome> fittest() {
    size_t keep = std::min<size_t>(measured_.size(), static_cast<size_t>(population_));
    std::partial_sort(measured_.begin(), measured_.begin() + keep, measured_.end(),
                      [](const TrialOutcome& a, const TrialOutcome& b) { return a.gflops > b.gflops; });
    return {measured_.begin(), measured_.begin() + keep};
  }

  // Tournament of two: the faster of two random members.
  const TrialOutcome& pick(const std::vector<TrialOutcome>& parents) {
    std::uniform_int_distribution<size_t> member(0, parents.size() - 1);
    const TrialOutcome& a = parents[member(rng())];
    const TrialOutcome& b = parents[member(rng())];
    return a.gflops >= b.gflops ? a : b;
  }

  int64_t population_;
  double mutation_;
  std::vector<TrialOutcome> measured_;
};

const std::vector<ParamSpec> kParams = {
    {"population", ParamType::Int, 16, "the best configurations kept as parents",
     Allowed::at_least(2).at_most(limits::kMaxPopulation)},
    {"mutation", ParamType::Float, 0.1, "probability that a child's knob takes a random choice",
     Allowed::at_least(0).at_most(1)}};

}  // namespace

TESSEL_REGISTER_PLUGIN(SearchStrategy, genetic, "genetic algorithm: tournament, uniform crossover, mutation",
                       kParams, [](const PluginParams& p) {
                         return std::make_unique<GeneticStrategy>(p.get_int("seed"), p.get_int("population"),
                                                                  p.get_float("mutation"));
                       });

}  // namespace tessel::search
