// The "grid" strategy: every configuration in index order (the first knob varies fastest), for
// exhaustive sweeps of small spaces. It needs a numbered space (SearchSpace::size() > 0).
#include "search/strategies/search_strategy.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

class GridStrategy : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;

 protected:
  void on_bind() override {
    if (space().size() == 0)
      user_error("strategy grid enumerates candidates by index, but the space '", task().space_name(),
                 "' is not numbered; choose another strategy");
  }

  std::vector<Candidate> propose(size_t n) override {
    std::vector<Candidate> batch;
    for (; cursor_ < space().size() && batch.size() < n; ++cursor_)
      if (Candidate c = Candidate::from_index(cursor_); !visited(c)) batch.push_back(c);
    return batch;
  }
  void observe(const std::vector<TrialOutcome>&) override {}

 private:
  uint64_t cursor_ = 0;
};

}  // namespace

TESSEL_REGISTER_PLUGIN(SearchStrategy, grid, "every configuration in index order (exhaustive)",
                       std::vector<ParamSpec>{},
                       [](const PluginParams& p) { return std::make_unique<GridStrategy>(p.get_int("seed")); });

}  // namespace tessel::search
