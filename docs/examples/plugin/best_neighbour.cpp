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

#include "search/strategies/search_strategy.h"
#include "support/registry.h"

namespace {

using tessel::Allowed;
using tessel::ParamSpec;
using tessel::ParamType;
using tessel::PluginParams;
using tessel::search::SearchStrategy;
using tessel::search::TrialOutcome;

class BestNeighbour : public SearchStrategy {
 public:
  // radius and patience are >= 1: their ParamSpecs say so, and the registry checks them.
  BestNeighbour(uint64_t seed, int64_t radius, int64_t patience)
      : SearchStrategy(seed), radius_(radius), patience_(patience) {}

 protected:
  std::vector<uint64_t> propose(size_t n) override {
    if (!current_) return random_unvisited(n);  // nothing to climb from yet, or restarting
    std::vector<uint64_t> around = unvisited_neighbours(*current_);
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
      current_ = best->config_index;
      current_gflops_ = best->gflops;
      stale_batches_ = 0;
    } else if (current_ && ++stale_batches_ >= patience_) {
      restart();
    }
  }

 private:
  // Configurations one knob away: each knob's choice moved by 1..radius positions either way.
  std::vector<uint64_t> unvisited_neighbours(uint64_t index) const {
    std::vector<uint64_t> out;
    const std::vector<size_t> from = space().decode(index);
    for (size_t k = 0; k < from.size(); ++k) {
      const int64_t size = static_cast<int64_t>(space().knobs()[k].size());
      for (int64_t step = -radius_; step <= radius_; ++step) {
        const int64_t choice = static_cast<int64_t>(from[k]) + step;
        if (step == 0 || choice < 0 || choice >= size) continue;
        std::vector<size_t> moved = from;
        moved[k] = static_cast<size_t>(choice);
        const uint64_t neighbour = space().encode(moved);
        if (!visited(neighbour)) out.push_back(neighbour);
      }
    }
    return out;
  }

  // The next measured batch is random, and its best becomes the new current point.
  void restart() {
    current_.reset();
    current_gflops_ = 0;
    stale_batches_ = 0;
  }

  int64_t radius_, patience_;
  std::optional<uint64_t> current_;
  double current_gflops_ = 0;
  int64_t stale_batches_ = 0;
};

const std::vector<ParamSpec> kParams = {
    tessel::search::seed_param(),
    {"radius", ParamType::Int, 1, "how many positions a move may shift one knob's choice", Allowed::at_least(1)},
    {"patience", ParamType::Int, 2, "batches without improvement before a random restart", Allowed::at_least(1)}};

}  // namespace

// Runs when the library is loaded: adds "best_neighbour" to the strategies `tessel plugins` lists.
TESSEL_REGISTER_PLUGIN(tessel::search::SearchStrategy, best_neighbour,
                       "hill climbing: measures the unvisited one-knob neighbours of the best point",
                       kParams, [](const PluginParams& p) {
                         return std::make_unique<BestNeighbour>(p.get_int("seed"), p.get_int("radius"),
                                                                p.get_int("patience"));
                       });
