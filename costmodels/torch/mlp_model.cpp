// The "mlp" cost model: a three-layer perceptron over the standardized flat program features.
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include "costmodels/torch/neural_models_internal.h"
#include "costmodels/torch/neural_training.h"

namespace tessel::neural {

namespace {

struct FlatBatch : Batch {
  torch::Tensor rows;  // programs x kFlatFeatureLength, not yet standardized
};

torch::Tensor flat_rows(const std::vector<ProgramFeatures>& x) {
  torch::Tensor rows = torch::empty({static_cast<int64_t>(x.size()), kFlatFeatureLength}, torch::kFloat32);
  float* out = rows.data_ptr<float>();
  for (const ProgramFeatures& f : x) out = std::copy(f.flat.begin(), f.flat.end(), out);
  return rows;
}

class MlpModel : public NeuralCostModel {
 public:
  explicit MlpModel(NeuralModelOptions options) : NeuralCostModel("mlp", std::move(options)) {}

 protected:
  void reset(const std::vector<ProgramFeatures>& x) override {
    int h = options().hidden;
    net_ = torch::nn::Sequential(torch::nn::Linear(kFlatFeatureLength, h), torch::nn::ReLU(),
                                 torch::nn::Linear(h, h), torch::nn::ReLU(), torch::nn::Linear(h, 1));
    standardizer_.fit(flat_rows(x));
  }

  std::unique_ptr<Batch> encode(const std::vector<ProgramFeatures>& x) const override {
    auto batch = std::make_unique<FlatBatch>();
    batch->rows = standardizer_.apply(flat_rows(x));
    return batch;
  }

  torch::Tensor forward(const Batch& batch) const override {
    return net_->forward(static_cast<const FlatBatch&>(batch).rows).squeeze(1);
  }

  torch::nn::Module& network() override { return *net_; }

 private:
  // Sequential::forward is not const, though scoring does not change the network.
  mutable torch::nn::Sequential net_{nullptr};
  Standardizer standardizer_;
};

}  // namespace

std::unique_ptr<CostModel> make_mlp_model(const NeuralModelOptions& options) {
  return std::make_unique<MlpModel>(options);
}

}  // namespace tessel::neural
