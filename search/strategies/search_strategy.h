// The search-strategy plugin interface (kind "strategy"). A strategy proposes which candidates of
// a task's schedule space to measure next and learns from what the measurements gave.
//
// A strategy works on candidates (search/spaces/candidate.h) through the space's moves
// (search/spaces/search_space.h: random, mutate, crossover, perturb, neighbours), so the same
// strategy searches a knob template, whose candidates are configuration indices, and a space
// whose candidates are decision lists.
//
// The base class keeps the bookkeeping every strategy needs, so a new strategy only writes
// propose() and observe(): the set of candidates already measured or proposed (next_batch never
// returns one twice, and never more than the space has left), a random generator seeded from the
// "seed" parameter, and helpers to draw unvisited candidates. It also checks what a strategy
// returns at the interface: a proposal holding a candidate outside the space, one candidate twice,
// or more than asked for is an error naming the strategy (not a corrupt run).
//
// A strategy's choices must be a function of its seed and the outcomes it was told: the tuner
// resumes a killed run by replaying the run's recorded batches through next_batch and update
// (replay_history), and relies on the strategy proposing the same batches again.
//
// The cost-model hook: a strategy that ranks candidates with a learned model (model_based)
// overrides uses_cost_model() to return true, and is then given its model with set_cost_model()
// and, optionally, prior training data of other workloads with set_transfer_source()
// (search/strategies/transfer.h), both before bind(). search/strategy_factory.h does this wiring; strategies
// that do not use a model are never given one.
//
//   auto s = Registry<SearchStrategy>::instance().create("random", {{"seed", 3}});
//   s->bind(task);
//   std::vector<Candidate> batch = s->next_batch(8);   ... measure ...   s->update(outcomes);
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "costmodels/cost_model.h"
#include "search/task/task.h"
#include "support/registry.h"

namespace tessel::search {

class TransferSource;

struct TrialOutcome {
  Candidate candidate;
  bool ok = false;    // false for every failure (compile error, crash, timeout, wrong result)
  double gflops = 0;  // 0 unless ok
};

// One batch of a run as recorded: what was measured, in order, and what it gave.
using RecordedBatch = std::vector<TrialOutcome>;

class SearchStrategy {
 public:
  static constexpr const char* kPluginKind = "strategy";
  explicit SearchStrategy(uint64_t seed) : rng_(seed) {}
  virtual ~SearchStrategy() = default;
  // The parameters every strategy takes, which the registry adds to those a strategy declares:
  // `seed` (seed_param()), so tune's --seed and an experiment's seeds reach every strategy; its
  // factory reads it with get_int("seed") and passes it to this base.
  static std::vector<ParamSpec> common_params();

  // The registry name, for messages; set by create_strategy (search/strategy_factory.h).
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  // Attaches the task; must come before next_batch. The task must outlive the strategy.
  void bind(const Task& task);
  // Up to n distinct candidates never proposed or measured before; fewer only when the space has
  // fewer left (empty when exhausted). Throws UserError naming the strategy if its proposal is
  // invalid (see above).
  std::vector<Candidate> next_batch(size_t n);
  // Results of measured candidates: the batch just proposed.
  void update(const std::vector<TrialOutcome>& outcomes);

  // Rebuilds the state of a resumed run from its own recorded batches, in order: each batch is
  // proposed again (next_batch with the recorded size) and the recorded outcomes fed back
  // (update), exactly the calls the run made before it was killed. Returns the number (1-based) of
  // the first batch whose proposal differed from the record, 0 when all matched; from a mismatch
  // on, the strategy goes on from the recorded candidates (none is measured twice), but the run no
  // longer repeats an uninterrupted one.
  size_t replay_history(const std::vector<RecordedBatch>& batches);

  // Candidates neither measured nor proposed; for a space that is not numbered (size() 0), the
  // largest number, as its supply is open.
  uint64_t remaining() const;

  // Whether the strategy ranks candidates with a cost model; false unless a strategy overrides it.
  virtual bool uses_cost_model() const { return false; }
  // Gives the strategy its model (before bind). Only for strategies that use one: an internal
  // error otherwise, as a model given to them would silently do nothing.
  void set_cost_model(std::unique_ptr<CostModel> model);
  // Records of other workloads to train the model on too (before bind; same rule as above).
  void set_transfer_source(std::shared_ptr<const TransferSource> source);

 protected:
  // n >= 1 and n <= remaining(). May return fewer than n; the base fills up with random ones.
  // Candidates already visited are dropped; any other candidate must be new, valid and listed once.
  virtual std::vector<Candidate> propose(size_t n) = 0;
  virtual void observe(const std::vector<TrialOutcome>& outcomes) = 0;
  virtual void on_bind() {}

  const Task& task() const;
  CostModel* cost_model() const { return cost_model_.get(); }  // null unless set
  const TransferSource* transfer_source() const { return transfer_.get(); }  // null unless set
  const SearchSpace& space() const { return task().space(); }
  bool visited(const Candidate& c) const { return visited_.count(c) > 0; }
  std::mt19937_64& rng() { return rng_; }

  // Up to n distinct unvisited candidates drawn uniformly.
  std::vector<Candidate> random_unvisited(size_t n);
  // Up to n distinct unvisited candidates made by `make`, calling it at most 20·n times: for
  // moves (neighbours, children) that may repeat themselves or run out.
  std::vector<Candidate> unvisited_from(size_t n, const std::function<Candidate()>& make);
  // Appends to `batch` those of `candidates` that are unvisited and not in it yet, up to n in all.
  void add_unvisited(std::vector<Candidate>& batch, const std::vector<Candidate>& candidates, size_t n) const;
  // `c` with one decision changed (the space's mutate, with this strategy's generator).
  Candidate mutate(const Candidate& c) { return space().mutate(c, rng_); }

 private:
  void check_proposal(const std::vector<Candidate>& proposal, size_t n) const;

  std::string name_ = "(unnamed)";
  const Task* task_ = nullptr;
  std::unordered_set<Candidate, CandidateHash> visited_;
  std::mt19937_64 rng_;
  std::unique_ptr<CostModel> cost_model_;
  std::shared_ptr<const TransferSource> transfer_;
};

// The parameter every strategy takes (common_params): a strategy may list it among its own, first.
ParamSpec seed_param();

}  // namespace tessel::search
