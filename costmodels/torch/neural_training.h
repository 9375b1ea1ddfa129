// What the libtorch cost models share: a base class that fits a network from scratch on each fit()
// (seeded, full-batch Adam) with a ranking or regression loss, and feature standardization.
// Internal to libtessel_torch.so: only costmodels/torch/*.cpp include it, because the
// libtorch headers it pulls in cost half a minute of compile time per file.
#pragma once
#include <torch/nn/module.h>
#include <torch/types.h>

#include <memory>
#include <string>
#include <vector>

#include "costmodels/neural_models.h"

namespace tessel::neural {

// Scales each feature column to zero mean and unit variance, with statistics from training data.
class Standardizer {
 public:
  void fit(const torch::Tensor& rows);  // rows x features
  torch::Tensor apply(const torch::Tensor& rows) const;

 private:
  torch::Tensor mean_, scale_;
};

// The training objective on scores s and targets y in [0, 1] (throughput / best):
//   pairwise: RankNet, mean of log(1 + exp(-(s_i - s_j))) over pairs with y_i > y_j;
//   listwise: ListNet, cross-entropy of softmax(s) against softmax(y / 0.1);
//   mse: mean of (s - y)^2.
torch::Tensor rank_loss(const std::string& loss, const torch::Tensor& scores, const torch::Tensor& targets);

// A network's inputs for a set of programs, built once per fit() or predict().
struct Batch {
  virtual ~Batch() = default;
};

class NeuralCostModel : public CostModel {
 public:
  NeuralCostModel(std::string name, NeuralModelOptions options);
  std::string name() const override { return name_; }
  bool trained() const override { return trained_; }

 protected:
  void do_fit(const std::vector<ProgramFeatures>& x, const std::vector<double>& throughput) override;
  std::vector<double> do_predict(const std::vector<ProgramFeatures>& x) const override;

  const NeuralModelOptions& options() const { return options_; }
  // Creates a freshly initialized network and fits the input statistics on the training programs.
  virtual void reset(const std::vector<ProgramFeatures>& x) = 0;
  virtual std::unique_ptr<Batch> encode(const std::vector<ProgramFeatures>& x) const = 0;
  // One score per program of the batch.
  virtual torch::Tensor forward(const Batch& batch) const = 0;
  virtual torch::nn::Module& network() = 0;

 private:
  std::string name_;
  NeuralModelOptions options_;
  bool trained_ = false;
};

}  // namespace tessel::neural
