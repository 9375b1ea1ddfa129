// The libtorch cost models: "mlp", a multi-layer perceptron over the flat program features, and
// "treegru", a child-sum TreeGRU over the loop tree (costmodels/features.h). Both train with a
// ranking loss (or mean squared error) on throughputs normalized by their maximum.
//
// Their code lives in libtessel_torch.so (costmodels/torch/), beside libtessel.so, because libtorch
// costs every process that links it about a second at start-up; it is loaded the first time one
// of these models is created (support/torch_library.h). This file registers them, so they are listed and their
// parameters checked without loading libtorch.
#pragma once
#include <memory>
#include <string>

#include "costmodels/cost_model.h"

namespace tessel {

struct NeuralModelOptions {
  std::string loss = "pairwise";  // pairwise (RankNet), listwise (ListNet) or mse
  int epochs = 200;               // full-batch Adam steps per fit
  double learning_rate = 0.01;
  int hidden = 64;  // width of the hidden layers / GRU state
  int seed = 0;
};

// Creates "mlp" or "treegru", loading libtessel_torch.so on first use; throws UserError
// if it cannot be loaded. The options are taken as given: their valid ranges are declared by the
// plugins' parameters, which the registry checks when a model is created by name.
std::unique_ptr<CostModel> create_neural_cost_model(const std::string& model, const NeuralModelOptions& options);

}  // namespace tessel
