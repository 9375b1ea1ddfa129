// The constructors of the libtorch cost models, for the library's exported factory
// (costmodels/torch/entry.cpp); free of libtorch headers.
#pragma once
#include <memory>

#include "costmodels/neural_models.h"

namespace tessel::neural {

std::unique_ptr<CostModel> make_mlp_model(const NeuralModelOptions& options);
std::unique_ptr<CostModel> make_treegru_model(const NeuralModelOptions& options);

}  // namespace tessel::neural
