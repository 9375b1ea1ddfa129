// The autoregressive knob policy of the rl strategy (search/strategies/torch/knob_policy.h).
#include "search/strategies/torch/knob_policy.h"

#include <torch/nn/init.h>
#include <torch/utils.h>

#include <string>

namespace tessel::rl {

namespace {

// Inverse-CDF draw from one row of probabilities; the last choice absorbs rounding error.
int64_t draw(const float* probs, int64_t size, double u) {
  double cumulative = 0;
  for (int64_t c = 0; c + 1 < size; ++c) {
    cumulative += probs[c];
    if (u < cumulative) return c;
  }
  return size - 1;
}

}  // namespace

KnobPolicyImpl::KnobPolicyImpl(std::vector<int64_t> sizes, int hidden) : sizes_(std::move(sizes)), hidden_(hidden) {
  start_ = register_parameter("start", torch::randn({1, hidden}) * 0.1);
  cell_ = register_module("cell", torch::nn::GRUCell(hidden, hidden));
  for (size_t t = 0; t < sizes_.size(); ++t) {
    heads_.push_back(register_module("head" + std::to_string(t), torch::nn::Linear(hidden, sizes_[t])));
    embeddings_.push_back(
        register_module("embed" + std::to_string(t), torch::nn::Embedding(sizes_[t], hidden)));
    // A small last layer makes the first policy close to uniform: exploration starts unbiased.
    torch::NoGradGuard no_grad;
    heads_.back()->weight.mul_(0.1);
    heads_.back()->bias.zero_();
  }
}

torch::Tensor KnobPolicyImpl::start_input(int64_t rows) const { return start_.expand({rows, hidden_}); }

torch::Tensor KnobPolicyImpl::step(size_t t, const torch::Tensor& input, torch::Tensor& state) {
  state = cell_->forward(input, state);
  return heads_[t]->forward(state);
}

std::vector<std::vector<int64_t>> KnobPolicyImpl::sample(size_t count, const std::function<double()>& uniform) {
  torch::NoGradGuard no_grad;
  auto rows = static_cast<int64_t>(count);
  std::vector<std::vector<int64_t>> out(count, std::vector<int64_t>(sizes_.size()));
  torch::Tensor state = torch::zeros({rows, hidden_});
  torch::Tensor input = start_input(rows);
  for (size_t t = 0; t < sizes_.size(); ++t) {
    torch::Tensor probs = torch::softmax(step(t, input, state), 1).contiguous();
    torch::Tensor chosen = torch::empty({rows}, torch::kInt64);
    for (int64_t r = 0; r < rows; ++r) {
      out[r][t] = draw(probs.data_ptr<float>() + r * sizes_[t], sizes_[t], uniform());
      chosen.data_ptr<int64_t>()[r] = out[r][t];
    }
    input = embeddings_[t]->forward(chosen);
  }
  return out;
}

PolicyScores KnobPolicyImpl::evaluate(const torch::Tensor& choices) {
  int64_t rows = choices.size(0);
  torch::Tensor state = torch::zeros({rows, hidden_});
  torch::Tensor input = start_input(rows);
  PolicyScores scores{torch::zeros({rows}), torch::zeros({rows})};
  for (size_t t = 0; t < sizes_.size(); ++t) {
    torch::Tensor log_probs = torch::log_softmax(step(t, input, state), 1);
    torch::Tensor chosen = choices.select(1, static_cast<int64_t>(t));
    scores.log_prob = scores.log_prob + log_probs.gather(1, chosen.unsqueeze(1)).squeeze(1);
    scores.entropy = scores.entropy - (log_probs.exp() * log_probs).sum(1);
    input = embeddings_[t]->forward(chosen);
  }
  return scores;
}

}  // namespace tessel::rl
