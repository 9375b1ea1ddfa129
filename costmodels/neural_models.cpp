// Registration of the libtorch cost models; their code is loaded on first use (support/torch_library.h).
#include "costmodels/neural_models.h"

#include "support/limits.h"
#include "support/torch_library.h"

namespace tessel {

namespace {

// The factory libtessel_torch.so exports (costmodels/torch/entry.cpp).
using NeuralFactory = CostModel* (*)(const char* model, const NeuralModelOptions* options);
constexpr const char* kFactorySymbol = "tessel_create_neural_cost_model";

NeuralModelOptions options_from(const PluginParams& p) {
  NeuralModelOptions o;
  o.loss = p.get_string("loss");
  o.epochs = static_cast<int>(p.get_int("epochs"));
  o.learning_rate = p.get_float("learning_rate");
  o.hidden = static_cast<int>(p.get_int("hidden"));
  o.seed = static_cast<int>(p.get_int("seed"));
  return o;
}

std::vector<ParamSpec> neural_params() {
  NeuralModelOptions d;
  return {
      {"loss", ParamType::String, d.loss, "training loss: pairwise is RankNet, listwise ListNet, mse regression",
       Allowed::one_of({"pairwise", "listwise", "mse"})},
      {"epochs", ParamType::Int, d.epochs, "full-batch training steps per fit", limits::iterations()},
      {"learning_rate", ParamType::Float, d.learning_rate, "Adam learning rate", Allowed::above(0)},
      {"hidden", ParamType::Int, d.hidden, "hidden layer width / GRU state size", Allowed::at_least(1).at_most(4096)},
      {"seed", ParamType::Int, d.seed, "random seed of initialization", limits::seed()},
  };
}

}  // namespace

std::unique_ptr<CostModel> create_neural_cost_model(const std::string& model, const NeuralModelOptions& options) {
  check_choice("(neural)", "name", model, {"mlp", "treegru"});
  auto create = torch_library().function<NeuralFactory>(kFactorySymbol);
  return std::unique_ptr<CostModel>(create(model.c_str(), &options));
}

TESSEL_REGISTER_PLUGIN(CostModel, mlp, "multi-layer perceptron over program features (libtorch)", neural_params(),
                       [](const PluginParams& p) { return create_neural_cost_model("mlp", options_from(p)); });
TESSEL_REGISTER_PLUGIN(CostModel, treegru, "child-sum TreeGRU over the loop tree (libtorch)", neural_params(),
                       [](const PluginParams& p) { return create_neural_cost_model("treegru", options_from(p)); });

}  // namespace tessel
