// The "random" strategy: configurations drawn uniformly without replacement. The baseline every
// other strategy has to beat.
#include "search/strategies/search_strategy.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

class RandomStrategy : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;

 protected:
  std::vector<Candidate> propose(size_t n) override { return random_unvisited(n); }
  void observe(const std::vector<TrialOutcome>&) override {}
};

}  // namespace

TESSEL_REGISTER_PLUGIN(SearchStrategy, random, "uniform random configurations, without replacement",
                       std::vector<ParamSpec>{},
                       [](const PluginParams& p) { return std::make_unique<RandomStrategy>(p.get_int("seed")); });

}  // namespace tessel::search
