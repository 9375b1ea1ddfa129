// The network of the rl strategy (search/strategies/rl_strategy.h): an autoregressive categorical
// policy over a sequence of decisions, decision t having sizes[t] choices. A GRU cell steps over
// the decisions; a softmax head per decision reads its state, and the choice made is embedded as
// the next step's input (the first step reads a learned start vector).
// Internal to libtessel_torch.so: only search/strategies/torch/*.cpp include it (libtorch headers).
#pragma once
#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/pimpl.h>

#include <functional>
#include <vector>

namespace tessel::rl {

// log π and entropy of a batch of choice rows, each summed over the decisions of its row.
struct PolicyScores {
  torch::Tensor log_prob;  // rows
  torch::Tensor entropy;   // rows
};

class KnobPolicyImpl : public torch::nn::Module {
 public:
  KnobPolicyImpl(std::vector<int64_t> sizes, int hidden);

  // `count` rows of choices drawn from the policy, one per decision; `uniform` gives the random
  // numbers in [0, 1), so the caller's generator decides (and reproduces) every draw.
  std::vector<std::vector<int64_t>> sample(size_t count, const std::function<double()>& uniform);
  // Scores of given choice rows (int64, rows x decisions), differentiable.
  PolicyScores evaluate(const torch::Tensor& choices);

 private:
  // The logits of decision t, advancing the GRU state from `input`.
  torch::Tensor step(size_t t, const torch::Tensor& input, torch::Tensor& state);
  torch::Tensor start_input(int64_t rows) const;

  std::vector<int64_t> sizes_;
  int hidden_;
  torch::Tensor start_;
  torch::nn::GRUCell cell_{nullptr};
  std::vector<torch::nn::Linear> heads_;
  std::vector<torch::nn::Embedding> embeddings_;
};
TORCH_MODULE(KnobPolicy);

}  // namespace tessel::rl
