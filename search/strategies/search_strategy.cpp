// Bookkeeping shared by all search strategies (search/strategies/search_strategy.h).
#include "search/strategies/search_strategy.h"

#include <algorithm>
#include <limits>

#include "support/error.h"
#include "support/limits.h"
#include "support/registry.h"

namespace tessel::search {

namespace {
// Below this many unvisited points of a numbered space, drawing by rejection may stall: enumerate
// them instead.
constexpr uint64_t kEnumerateBelow = 4096;
// How many times a candidate-making move is tried per wanted candidate before giving up.
constexpr size_t kAttemptsPerCandidate = 20;
}  // namespace

void SearchStrategy::bind(const Task& task) {
  task_ = &task;
  on_bind();
}

const Task& SearchStrategy::task() const {
  TESSEL_CHECK(task_ != nullptr, "strategy used before bind()");
  return *task_;
}

void SearchStrategy::set_cost_model(std::unique_ptr<CostModel> model) {
  TESSEL_CHECK(uses_cost_model(), "set_cost_model on a strategy that uses no cost model");
  cost_model_ = std::move(model);
}

void SearchStrategy::set_transfer_source(std::shared_ptr<const TransferSource> source) {
  TESSEL_CHECK(uses_cost_model(), "set_transfer_source on a strategy that uses no cost model");
  transfer_ = std::move(source);
}

uint64_t SearchStrategy::remaining() const {
  if (space().size() == 0) return std::numeric_limits<uint64_t>::max();
  return space().size() - visited_.size();
}

void SearchStrategy::check_proposal(const std::vector<Candidate>& proposal, size_t n) const {
  if (proposal.size() > n)
    user_error("strategy '", name_, "' proposed ", proposal.size(), " candidates for a batch of ", n,
               "; a proposal holds at most as many as asked for");
  std::unordered_set<Candidate, CandidateHash> fresh;
  for (const Candidate& c : proposal) {
    if (!space().contains(c))
      user_error("strategy '", name_, "' proposed ", c.str(), ", which is not a candidate of the space '",
                 task().space_name(), "' of ", task().workload().name);
    if (!visited(c) && !fresh.insert(c).second)
      user_error("strategy '", name_, "' proposed ", c.str(), " twice in one batch");
  }
}

std::vector<Candidate> SearchStrategy::next_batch(size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, remaining()));
  if (n == 0) return {};
  std::vector<Candidate> proposal = propose(n);
  check_proposal(proposal, n);
  std::vector<Candidate> batch;
  for (Candidate& c : proposal)
    if (visited_.insert(c).second) batch.push_back(std::move(c));
  for (Candidate& c : random_unvisited(n - batch.size())) {
    visited_.insert(c);
    batch.push_back(std::move(c));
  }
  return batch;
}

void SearchStrategy::update(const std::vector<TrialOutcome>& outcomes) {
  for (const TrialOutcome& o : outcomes) visited_.insert(o.candidate);
  observe(outcomes);
}

size_t SearchStrategy::replay_history(const std::vector<RecordedBatch>& batches) {
  size_t first_mismatch = 0;
  for (size_t b = 0; b < batches.size(); ++b) {
    const RecordedBatch& recorded = batches[b];
    std::vector<Candidate> proposed = next_batch(recorded.size());
    bool same = proposed.size() == recorded.size() &&
                std::equal(proposed.begin(), proposed.end(), recorded.begin(),
                           [](const Candidate& c, const TrialOutcome& o) { return c == o.candidate; });
    if (!same) {
      if (first_mismatch == 0) first_mismatch = b + 1;
      for (const Candidate& c : proposed) visited_.erase(c);  // proposed, but never measured
    }
    update(recorded);
  }
  return first_mismatch;
}

std::vector<Candidate> SearchStrategy::random_unvisited(size_t n) {
  if (n == 0) return {};
  uint64_t size = space().size();
  if (size == 0) return unvisited_from(n, [&] { return space().random(rng_); });
  std::vector<Candidate> out;
  if (remaining() <= kEnumerateBelow) {
    for (uint64_t i = 0; i < size; ++i)
      if (Candidate c = Candidate::from_index(i); !visited(c)) out.push_back(c);
    std::shuffle(out.begin(), out.end(), rng_);
    out.resize(std::min(out.size(), n));
    return out;
  }
  std::unordered_set<Candidate, CandidateHash> chosen;
  while (out.size() < n) {
    Candidate c = space().random(rng_);
    if (!visited(c) && chosen.insert(c).second) out.push_back(c);
  }
  return out;
}

std::vector<Candidate> SearchStrategy::unvisited_from(size_t n, const std::function<Candidate()>& make) {
  std::vector<Candidate> batch;
  for (size_t attempt = 0; attempt < kAttemptsPerCandidate * n && batch.size() < n; ++attempt)
    add_unvisited(batch, {make()}, n);
  return batch;
}

void SearchStrategy::add_unvisited(std::vector<Candidate>& batch, const std::vector<Candidate>& candidates,
                                   size_t n) const {
  for (const Candidate& c : candidates)
    if (batch.size() < n && !visited(c) && std::find(batch.begin(), batch.end(), c) == batch.end())
      batch.push_back(c);
}

std::vector<ParamSpec> SearchStrategy::common_params() { return {seed_param()}; }

ParamSpec seed_param() { return {"seed", ParamType::Int, 0, "seed of the strategy's random choices", limits::seed()}; }

}  // namespace tessel::search
