// Registration of the libtorch cost models; their code is loaded on first use (support/torch_library.h).
#include "costmodels/neural_models.h"

#include "support/error.h"
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
      {"loss", ParamType::String, d.loss, "pairwise (RankNet), listwise (ListNet) or mse"},
      {"epochs", ParamType::Int, d.epochs, "full-batch training steps per fit"},
      {"learning_rate", ParamType::Float, d.learning_rate, "Adam learning rate"},
      {"hidden", ParamType::Int, d.hidden, "hidden layer width / GRU state size"},
      {"seed", ParamType::Int, d.seed, "random seed of initialization"},
  };
}

}  // namespace

void check_neural_options(const std::string& model, const NeuralModelOptions& o) {
  check_choice(model, "loss", o.loss, {"pairwise", "listwise", "mse"});
  if (o.epochs < 1) user_error("cost model '", model, "': parameter 'epochs' must be >= 1, got ", o.epochs);
  if (!(o.learning_rate > 0))
    user_error("cost model '", model, "': parameter 'learning_rate' must be > 0, got ", o.learning_rate);
  if (o.hidden < 1 || o.hidden > 4096)
    user_error("cost model '", model, "': parameter 'hidden' must be in [1, 4096], got ", o.hidden);
}

std::unique_ptr<CostModel> create_neural_cost_model(const std::string& model, const NeuralModelOptions& options) {
  check_choice("(neural)", "name", model, {"mlp", "treegru"});
  check_neural_options(model, options);
  auto create = torch_library().function<NeuralFactory>(kFactorySymbol);
  return std::unique_ptr<CostModel>(create(model.c_str(), &options));
}

TESSEL_REGISTER_PLUGIN(CostModel, mlp, "multi-layer perceptron over program features (libtorch)", neural_params(),
                       [](const PluginParams& p) { return create_neural_cost_model("mlp", options_from(p)); });
TESSEL_REGISTER_PLUGIN(CostModel, treegru, "child-sum TreeGRU over the loop tree (libtorch)", neural_params(),
                       [](const PluginParams& p) { return create_neural_cost_model("treegru", options_from(p)); });

}  // namespace tessel
