// The libtorch half of the "rl" strategy (search/strategies/rl_strategy.h): sampling batches from
// the knob policy and the policy-gradient update, plus the factory libtessel looks up.
#include <ATen/Parallel.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <algorithm>
#include <memory>
#include <random>

#include "search/strategies/rl_strategy.h"
#include "search/strategies/torch/knob_policy.h"

namespace tessel::search {

namespace {

class RlStrategy : public SearchStrategy {
 public:
  explicit RlStrategy(const RlOptions& options) : SearchStrategy(options.seed), options_(options) {
    // The policy is tiny: threads cost more than they give, one thread keeps runs reproducible,
    // and the measured kernels keep the cores.
    at::set_num_threads(1);
  }

 protected:
  void on_bind() override;
  std::vector<Candidate> propose(size_t n) override;
  void observe(const std::vector<TrialOutcome>& outcomes) override;

 private:
  Candidate encode(const std::vector<int64_t>& decisions) const;
  torch::Tensor decisions_of(const std::vector<TrialOutcome>& outcomes) const;
  torch::Tensor advantages(const std::vector<TrialOutcome>& outcomes);
  void train(const torch::Tensor& decisions, const torch::Tensor& advantages);

  RlOptions options_;
  const ConfigSpace* space_ = nullptr;  // the policy chooses knob by knob
  std::vector<size_t> knobs_;  // positions of the knobs with more than one choice: the decisions
  rl::KnobPolicy policy_{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer_;
  double best_gflops_ = 0;
  double baseline_ = 0;
  bool has_baseline_ = false;
};

void RlStrategy::on_bind() {
  space_ = &task().knob_space("strategy rl");
  knobs_.clear();
  std::vector<int64_t> sizes;
  for (size_t k = 0; k < space_->knobs().size(); ++k) {
    if (space_->knobs()[k].size() < 2) continue;
    knobs_.push_back(k);
    sizes.push_back(static_cast<int64_t>(space_->knobs()[k].size()));
  }
  // Initialization draws from libtorch's global generator: seed it just before, so the network
  // depends on the seed alone, whatever else used libtorch in this process.
  torch::manual_seed(options_.seed);
  policy_ = rl::KnobPolicy(sizes, options_.hidden);
  optimizer_ = std::make_unique<torch::optim::Adam>(policy_->parameters(),
                                                    torch::optim::AdamOptions(options_.learning_rate));
  best_gflops_ = baseline_ = 0;
  has_baseline_ = false;
}

Candidate RlStrategy::encode(const std::vector<int64_t>& decisions) const {
  std::vector<size_t> choices(space_->knobs().size(), 0);
  for (size_t t = 0; t < knobs_.size(); ++t) choices[knobs_[t]] = static_cast<size_t>(decisions[t]);
  return Candidate::from_index(space_->encode(choices));
}

std::vector<Candidate> RlStrategy::propose(size_t n) {
  std::vector<Candidate> batch;
  std::uniform_real_distribution<double> unit(0, 1);
  auto uniform = [&] { return unit(rng()); };
  for (int round = 0; round < options_.resample && batch.size() < n; ++round) {
    std::vector<Candidate> sampled;
    for (const std::vector<int64_t>& decisions : policy_->sample(n, uniform)) sampled.push_back(encode(decisions));
    add_unvisited(batch, sampled, n);
  }
  return batch;  // the base class fills what the policy could not with random configurations
}

torch::Tensor RlStrategy::decisions_of(const std::vector<TrialOutcome>& outcomes) const {
  auto rows = static_cast<int64_t>(outcomes.size()), cols = static_cast<int64_t>(knobs_.size());
  torch::Tensor out = torch::empty({rows, cols}, torch::kInt64);
  int64_t* data = out.data_ptr<int64_t>();
  for (const TrialOutcome& o : outcomes) {
    std::vector<size_t> choices = space_->get(o.candidate).choices();
    for (size_t knob : knobs_) *data++ = static_cast<int64_t>(choices[knob]);
  }
  return out;
}

// r - b per outcome, with r = GFLOP/s / best so far (0 for failures); then moves the baseline.
torch::Tensor RlStrategy::advantages(const std::vector<TrialOutcome>& outcomes) {
  for (const TrialOutcome& o : outcomes)
    if (o.ok) best_gflops_ = std::max(best_gflops_, o.gflops);
  std::vector<float> rewards;
  for (const TrialOutcome& o : outcomes)
    rewards.push_back(o.ok && best_gflops_ > 0 ? static_cast<float>(o.gflops / best_gflops_) : 0.0f);
  double mean = 0;
  for (float r : rewards) mean += r;
  mean /= static_cast<double>(rewards.size());
  if (!has_baseline_) baseline_ = mean;  // the first batch is its own baseline
  has_baseline_ = true;
  torch::Tensor advantage = torch::tensor(rewards) - static_cast<float>(baseline_);
  baseline_ = options_.baseline_decay * baseline_ + (1 - options_.baseline_decay) * mean;
  return advantage;
}

// The first step is plain REINFORCE (the ratio is 1, its gradient that of log π); the repeated
// steps on the same batch use PPO's clipped surrogate so the policy cannot run away from it.
void RlStrategy::train(const torch::Tensor& decisions, const torch::Tensor& advantage) {
  torch::Tensor old_log_prob;
  {
    torch::NoGradGuard no_grad;
    old_log_prob = policy_->evaluate(decisions).log_prob;
  }
  for (int step = 0; step < options_.updates; ++step) {
    optimizer_->zero_grad();
    rl::PolicyScores scores = policy_->evaluate(decisions);
    torch::Tensor ratio = torch::exp(scores.log_prob - old_log_prob);
    torch::Tensor clipped = torch::clamp(ratio, 1 - options_.clip, 1 + options_.clip);
    torch::Tensor surrogate = torch::min(ratio * advantage, clipped * advantage);
    torch::Tensor loss = -surrogate.mean() - options_.entropy * scores.entropy.mean();
    loss.backward();
    optimizer_->step();
  }
}

void RlStrategy::observe(const std::vector<TrialOutcome>& outcomes) {
  if (outcomes.empty() || knobs_.empty()) return;
  torch::Tensor advantage = advantages(outcomes);
  train(decisions_of(outcomes), advantage);
}

}  // namespace

}  // namespace tessel::search

// The symbol libtessel looks up in libtessel_torch.so (search/strategies/rl_strategy.cpp); the
// caller owns the result. Options are checked by the caller.
extern "C" tessel::search::SearchStrategy* tessel_create_rl_strategy(const tessel::search::RlOptions* options) {
  return new tessel::search::RlStrategy(*options);
}
