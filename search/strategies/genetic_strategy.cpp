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
  std::vector<uint64_t> propose(size_t n) override {
    std::vector<TrialOutcome> parents = fittest();
    if (parents.size() < 2) return random_unvisited(n);
    std::vector<uint64_t> batch;
    for (size_t attempt = 0; attempt < 20 * n && batch.size() < n; ++attempt) {
      uint64_t child = space().encode(mutate(crossover(pick(parents), pick(parents))));
      if (!visited(child) && std::find(batch.begin(), batch.end(), child) == batch.end()) batch.push_back(child);
    }
    return batch;
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

  std::vector<size_t> crossover(const TrialOutcome& a, const TrialOutcome& b) {
    std::vector<size_t> x = space().decode(a.config_index), y = space().decode(b.config_index);
    std::bernoulli_distribution coin(0.5);
    for (size_t k = 0; k < x.size(); ++k)
      if (coin(rng())) x[k] = y[k];
    return x;
  }

  std::vector<size_t> mutate(std::vector<size_t> choices) {
    std::bernoulli_distribution flip(mutation_);
    for (size_t k = 0; k < choices.size(); ++k) {
      size_t size = space().knobs()[k].size();
      if (size > 1 && flip(rng())) choices[k] = std::uniform_int_distribution<size_t>(0, size - 1)(rng());
    }
    return choices;
  }

  int64_t population_;
  double mutation_;
  std::vector<TrialOutcome> measured_;
};

const std::vector<ParamSpec> kParams = {
    seed_param(),
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
