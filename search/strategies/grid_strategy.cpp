// The "grid" strategy: every configuration in index order (the first knob varies fastest), for
// exhaustive sweeps of small spaces.
#include "search/strategies/search_strategy.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

class GridStrategy : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;

 protected:
  std::vector<uint64_t> propose(size_t n) override {
    std::vector<uint64_t> batch;
    for (; cursor_ < space().size() && batch.size() < n; ++cursor_)
      if (!visited(cursor_)) batch.push_back(cursor_);
    return batch;
  }
  void observe(const std::vector<TrialOutcome>&) override {}

 private:
  uint64_t cursor_ = 0;
};

}  // namespace

TESSEL_REGISTER_PLUGIN(SearchStrategy, grid, "every configuration in index order (exhaustive)",
                       std::vector<ParamSpec>{seed_param()},
                       [](const PluginParams& p) { return std::make_unique<GridStrategy>(p.get_int("seed")); });

}  // namespace tessel::search
