// The symbol libtessel looks up in libtessel_torch.so to create a libtorch cost model by name
// (costmodels/neural_models.cpp), the caller owning the result.
#include <string>

#include "costmodels/torch/neural_models_internal.h"
#include "support/error.h"

extern "C" tessel::CostModel* tessel_create_neural_cost_model(const char* model,
                                                              const tessel::NeuralModelOptions* options) {
  std::string name = model;
  if (name == "mlp") return tessel::neural::make_mlp_model(*options).release();
  if (name == "treegru") return tessel::neural::make_treegru_model(*options).release();
  tessel::user_error("libtessel_torch has no cost model '", name, "'; valid names: mlp, treegru");
}
