// best_neighbour: a search strategy written outside Tessel's source tree, as a student would, and
// loaded from a shared library with `tessel --plugin libbest_neighbour.so` (docs/plugins.md walks
// through this file; tests/tools/plugin_install.sh builds it against an installed Tessel and tunes
// with it).
//
// It is a steepest-ascent hill climber with restarts. It keeps a current configuration and
// measures its unvisited neighbours: every configuration that moves one knob by at most `radius`
// positions in that knob's ordered list of choices. The fastest neighbour of a batch becomes the
// current point if it beats it. After `patience` batches without improvement, or once every
// neighbour has been measured (a local optimum), it restarts from random configurations.
#include <algorithm>
#include <optional>

#include "tessel/plugin.h"

namespace {

using namespace tessel::plugin;

class BestNeighbour : public SearchStrategy {
 public:
  // radius and patience are >= 1: their ParamSpecs say so, and the registry checks them.
  BestNeighbour(uint64_t seed, int64_t radius, int64_t patience)
      : SearchStrategy(seed), radius_(radius), patience_(patience) {}

 protected:
  std::vector<Candidate> propose(size_t n) override {
    if (!current_) return random_unvisited(n);  // nothing to climb from yet, or restarting
    std::vector<Candidate> around = unvisited_neighbours(*current_);
    if (around.empty()) {  // a local optimum: every neighbour is measured
      restart();
      return random_unvisited(n);
    }
    std::shuffle(around.begin(), around.end(), rng());
    around.resize(std::min(around.size(), n));
    return around;
  }

  void observe(const std::vector<TrialOutcome>& outcomes) override {
    const TrialOutcome* best = nullptr;
    for (const TrialOutcome& o : outcomes)
      if (o.ok && (!best || o.gflops > best->gflops)) best = &o;
    if (best && best->gflops > current_gflops_) {
      current_ = best->candidate;
      current_gflops_ = best->gflops;
      stale_batches_ = 0;
    } else if (current_ && ++stale_batches_ >= patience_) {
      restart();
    }
  }

 private:
  // Candidates one decision away (for a knob template: one knob's choice moved by 1..radius
  // positions either way), as the space defines its neighbourhood.
  std::vector<Candidate> unvisited_neighbours(const Candidate& from) const {
    std::vector<Candidate> out;
    for (const Candidate& neighbour : space().neighbours(from, static_cast<size_t>(radius_)))
      if (!visited(neighbour)) out.push_back(neighbour);
    return out;
  }

  // The next measured batch is random, and its best becomes the new current point.
  void restart() {
    current_.reset();
    current_gflops_ = 0;
    stale_batches_ = 0;
  }

  int64_t radius_, patience_;
  std::optional<Candidate> current_;
  double current_gflops_ = 0;
  int64_t stale_batches_ = 0;
};

// Every strategy also takes `seed`: the registry adds it, and the factory passes it to the base.
const std::vector<ParamSpec> kParams = {
    {"radius", ParamType::Int, 1, "how many positions a move may shift one knob's choice", Allowed::at_least(1)},
    {"patience", ParamType::Int, 2, "batches without improvement before a random restart", Allowed::at_least(1)}};

}  // namespace

// Runs when the library is loaded: adds "best_neighbour" to the strategies `tessel plugins` lists.
TESSEL_REGISTER_PLUGIN(SearchStrategy, best_neighbour,
                       "hill climbing: measures the unvisited one-knob neighbours of the best point",
                       kParams, [](const PluginParams& p) {
                         return std::make_unique<BestNeighbour>(p.get_int("seed"), p.get_int("radius"),
                                                                p.get_int("patience"));
                       });
