// Training of the libtorch cost models: losses, standardization and the fit/predict skeleton.
#include "costmodels/torch/neural_training.h"

#include <ATen/Parallel.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

namespace tessel::neural {

void Standardizer::fit(const torch::Tensor& rows) {
  mean_ = rows.mean(0);
  torch::Tensor std = rows.std(0, /*unbiased=*/false);
  scale_ = torch::where(std > 1e-6, std, torch::ones_like(std));
}

torch::Tensor Standardizer::apply(const torch::Tensor& rows) const { return (rows - mean_) / scale_; }

torch::Tensor rank_loss(const std::string& loss, const torch::Tensor& scores, const torch::Tensor& targets) {
  if (loss == "mse") return (scores - targets).pow(2).mean();
  if (loss == "listwise") {
    torch::Tensor wanted = torch::softmax(targets / 0.1, 0);
    return -(wanted * torch::log_softmax(scores, 0)).sum();
  }
  torch::Tensor better = targets.unsqueeze(1) > targets.unsqueeze(0);
  if (better.sum().item<int64_t>() == 0) return (scores - targets).pow(2).mean();  // nothing to order
  torch::Tensor margin = scores.unsqueeze(1) - scores.unsqueeze(0);
  return torch::softplus(-margin).masked_select(better).mean();
}

NeuralCostModel::NeuralCostModel(std::string name, NeuralModelOptions options)
    : name_(std::move(name)), options_(std::move(options)) {
  // These networks are tiny: threads cost more than they give, and one thread keeps results
  // identical run to run.
  at::set_num_threads(1);
}

void NeuralCostModel::do_fit(const std::vector<ProgramFeatures>& x, const std::vector<double>& throughput) {
  torch::manual_seed(static_cast<uint64_t>(options_.seed));
  reset(x);
  std::unique_ptr<Batch> batch = encode(x);
  std::vector<double> normalized = normalized_throughput(throughput);
  torch::Tensor targets = torch::tensor(normalized, torch::kFloat32);
  torch::optim::Adam optimizer(network().parameters(), torch::optim::AdamOptions(options_.learning_rate));
  network().train();
  for (int epoch = 0; epoch < options_.epochs; ++epoch) {
    optimizer.zero_grad();
    torch::Tensor loss = rank_loss(options_.loss, forward(*batch), targets);
    loss.backward();
    optimizer.step();
  }
  trained_ = true;
}

std::vector<double> NeuralCostModel::do_predict(const std::vector<ProgramFeatures>& x) const {
  torch::NoGradGuard no_grad;
  torch::Tensor scores = forward(*encode(x)).to(torch::kFloat64).contiguous();
  return std::vector<double>(scores.data_ptr<double>(), scores.data_ptr<double>() + scores.numel());
}

}  // namespace tessel::neural
