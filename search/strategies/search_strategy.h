// The search-strategy plugin interface (kind "strategy"). A strategy proposes which
// configurations of a task to measure next and learns from what the measurements gave.
//
// The base class keeps the bookkeeping every strategy needs, so a new strategy only writes
// propose() and observe(): the set of configurations already measured or proposed (next_batch
// never returns one twice, and never more than the space has left), a random generator seeded
// from the "seed" parameter, and moves on knob choices (decode, mutate, encode). A strategy that
// wants a cost model reaches the task through task(): it decodes configurations, and
// task().lower(config) gives the loop program a cost model extracts features from.
//
// The cost-model hook: a strategy that ranks candidates with a learned model (model_based)
// overrides uses_cost_model() to return true, and is then given its model with set_cost_model()
// and, optionally, prior training data of other workloads with set_transfer_source()
// (search/strategies/transfer.h), both before bind(). search/strategy_factory.h does this wiring; strategies
// that do not use a model are never given one.
//
//   auto s = Registry<SearchStrategy>::instance().create("random", {{"seed", 3}});
//   s->bind(task);
//   auto batch = s->next_batch(8);   ... measure ...   s->update(outcomes);
#pragma once
#include <cstdint>
#include <memory>
#include <random>
#include <unordered_set>
#include <vector>

#include "costmodels/cost_model.h"
#include "search/task/task.h"
#include "support/registry.h"

namespace tessel::search {

class TransferSource;

struct TrialOutcome {
  uint64_t config_index = 0;
  bool ok = false;      // false for every failure (compile error, crash, timeout, wrong result)
  double gflops = 0;    // 0 unless ok
};

class SearchStrategy {
 public:
  static constexpr const char* kPluginKind = "strategy";
  explicit SearchStrategy(uint64_t seed) : rng_(seed) {}
  virtual ~SearchStrategy() = default;

  // Attaches the task; must come before next_batch. The task must outlive the strategy.
  void bind(const Task& task);
  // Up to n distinct configuration indices never proposed or measured before; fewer only when
  // the space has fewer left (empty when exhausted).
  std::vector<uint64_t> next_batch(size_t n);
  // Results of measured configurations: the batch just proposed, or earlier records on resume.
  void update(const std::vector<TrialOutcome>& outcomes);

  uint64_t remaining() const;  // configurations neither measured nor proposed

  // Whether the strategy ranks candidates with a cost model; false unless a strategy overrides it.
  virtual bool uses_cost_model() const { return false; }
  // Gives the strategy its model (before bind). Only for strategies that use one: an internal
  // error otherwise, as a model given to them would silently do nothing.
  void set_cost_model(std::unique_ptr<CostModel> model);
  // Records of other workloads to train the model on too (before bind; same rule as above).
  void set_transfer_source(std::shared_ptr<const TransferSource> source);

 protected:
  // n >= 1 and n <= remaining(). May return fewer than n; the base fills up with random ones.
  virtual std::vector<uint64_t> propose(size_t n) = 0;
  virtual void observe(const std::vector<TrialOutcome>& outcomes) = 0;
  virtual void on_bind() {}

  const Task& task() const;
  CostModel* cost_model() const { return cost_model_.get(); }  // null unless set
  const TransferSource* transfer_source() const { return transfer_.get(); }  // null unless set
  const ConfigSpace& space() const { return task().space(); }
  bool visited(uint64_t index) const { return visited_.count(index) > 0; }
  std::mt19937_64& rng() { return rng_; }

  // Up to n distinct unvisited indices drawn uniformly.
  std::vector<uint64_t> random_unvisited(size_t n);
  // `choices` with one knob (of more than one choice) changed to another random choice.
  std::vector<size_t> mutate_one(std::vector<size_t> choices);

 private:
  const Task* task_ = nullptr;
  std::unordered_set<uint64_t> visited_;
  std::mt19937_64 rng_;
  std::unique_ptr<CostModel> cost_model_;
  std::shared_ptr<const TransferSource> transfer_;
};

// The parameter every strategy takes.
ParamSpec seed_param();

}  // namespace tessel::search
