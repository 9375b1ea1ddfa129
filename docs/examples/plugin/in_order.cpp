// in_order: the smallest complete plugin, a search strategy that measures the configurations of a
// numbered space in the order of their numbers (as the built-in `grid` does). docs/plugins.md
// shows this whole file; tests/tools/plugin_install.sh builds it against an installed Tessel and
// tunes with it. Build it as a MODULE library linking Tessel::tessel (CMakeLists.txt here) and run
//   tessel --plugin libin_order.so tune --workload gemm:256 --strategy in_order --trials 16
#include "tessel/plugin.h"

namespace {

using namespace tessel::plugin;

class InOrder : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;  // the constructor takes the seed of the strategy's rng()

 protected:
  // Up to n unvisited candidates, lowest numbers first. (The base refuses a batch with duplicates
  // or candidates outside the space, and fills a short one with random candidates.)
  std::vector<Candidate> propose(size_t n) override {
    std::vector<Candidate> batch;
    for (; next_ < space().size() && batch.size() < n; ++next_)
      if (Candidate c = Candidate::from_index(next_); !visited(c)) batch.push_back(c);
    return batch;
  }

  // The measurements do not change the order.
  void observe(const std::vector<TrialOutcome>&) override {}

 private:
  uint64_t next_ = 0;
};

}  // namespace

// No parameters of its own: the registry gives every strategy `seed`.
TESSEL_REGISTER_PLUGIN(SearchStrategy, in_order, "every configuration in index order, as a plugin", {},
                       [](const PluginParams& p) { return std::make_unique<InOrder>(p.get_int("seed")); });
