// Bookkeeping shared by all search strategies (search/strategies/search_strategy.h).
#include "search/strategies/search_strategy.h"

#include <algorithm>

#include "support/error.h"
#include "support/limits.h"
#include "support/registry.h"

namespace tessel::search {

namespace {
// Below this many unvisited points, drawing by rejection may stall: enumerate them instead.
constexpr uint64_t kEnumerateBelow = 4096;
}

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

uint64_t SearchStrategy::remaining() const { return space().size() - visited_.size(); }

std::vector<uint64_t> SearchStrategy::next_batch(size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, remaining()));
  if (n == 0) return {};
  std::vector<uint64_t> batch;
  for (uint64_t index : propose(n)) {
    TESSEL_CHECK(index < space().size(), "strategy proposed index ", index, " outside the space");
    if (batch.size() < n && visited_.insert(index).second) batch.push_back(index);
  }
  for (uint64_t index : random_unvisited(n - batch.size())) {
    visited_.insert(index);
    batch.push_back(index);
  }
  return batch;
}

void SearchStrategy::update(const std::vector<TrialOutcome>& outcomes) {
  for (const TrialOutcome& o : outcomes) visited_.insert(o.config_index);
  observe(outcomes);
}

std::vector<uint64_t> SearchStrategy::random_unvisited(size_t n) {
  std::vector<uint64_t> out;
  std::unordered_set<uint64_t> chosen;
  if (n == 0) return out;
  if (remaining() <= kEnumerateBelow) {
    for (uint64_t i = 0; i < space().size(); ++i)
      if (!visited(i)) out.push_back(i);
    std::shuffle(out.begin(), out.end(), rng_);
    out.resize(std::min(out.size(), n));
    return out;
  }
  std::uniform_int_distribution<uint64_t> uniform(0, space().size() - 1);
  while (out.size() < n) {
    uint64_t index = uniform(rng_);
    if (!visited(index) && chosen.insert(index).second) out.push_back(index);
  }
  return out;
}

std::vector<size_t> SearchStrategy::mutate_one(std::vector<size_t> choices) {
  std::vector<size_t> movable;
  for (size_t k = 0; k < space().knobs().size(); ++k)
    if (space().knobs()[k].size() > 1) movable.push_back(k);
  if (movable.empty()) return choices;
  size_t knob = movable[std::uniform_int_distribution<size_t>(0, movable.size() - 1)(rng_)];
  size_t size = space().knobs()[knob].size();
  size_t shift = std::uniform_int_distribution<size_t>(1, size - 1)(rng_);
  choices[knob] = (choices[knob] + shift) % size;
  return choices;
}

ParamSpec seed_param() { return {"seed", ParamType::Int, 0, "seed of the strategy's random choices", limits::seed()}; }

}  // namespace tessel::search
