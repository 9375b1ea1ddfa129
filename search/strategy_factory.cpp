// Creating a strategy with its cost model and transfer source (search/strategy_factory.h).
#include "search/strategy_factory.h"

#include "costmodels/cost_model.h"
#include "search/strategies/transfer.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

// `params` (an object or null) with "seed" set to the run's seed when the plugin takes one.
nlohmann::json with_seed(const nlohmann::json& params, const PluginInfo& info, int64_t seed) {
  if (!params.is_null() && !params.is_object())
    user_error(info.kind, " \"", info.name, "\": parameters must be a map of name: value, got ", params.dump());
  nlohmann::json out = params.is_null() ? nlohmann::json::object() : params;
  for (const ParamSpec& spec : info.params)
    if (spec.name == "seed") out["seed"] = seed;
  return out;
}

std::unique_ptr<SearchStrategy> create_bare_strategy(const StrategyChoice& choice) {
  const auto& registry = Registry<SearchStrategy>::instance();
  auto strategy =
      registry.create(choice.strategy, with_seed(choice.strategy_params, registry.info(choice.strategy), choice.seed));
  strategy->set_name(choice.strategy);
  return strategy;
}

bool is_none(const std::string& cost_model) { return cost_model.empty() || cost_model == "none"; }

[[noreturn]] void throw_missing_cost_model(const std::string& strategy) {
  user_error("strategy \"", strategy, "\" ranks candidates with a cost model, but none was given: pass one with ",
             "--cost-model NAME (or cost_model: NAME in an experiment config); valid cost models: ",
             join_list(Registry<CostModel>::instance().names()));
}

}  // namespace

std::unique_ptr<SearchStrategy> create_strategy(const StrategyChoice& choice) {
  std::unique_ptr<SearchStrategy> strategy = create_bare_strategy(choice);
  if (!strategy->uses_cost_model()) return strategy;
  if (is_none(choice.cost_model)) throw_missing_cost_model(choice.strategy);
  const auto& models = Registry<CostModel>::instance();
  strategy->set_cost_model(
      models.create(choice.cost_model, with_seed(choice.cost_model_params, models.info(choice.cost_model), choice.seed)));
  if (!choice.transfer_from.empty())
    strategy->set_transfer_source(std::make_shared<const TransferSource>(choice.transfer_from));
  return strategy;
}

std::unique_ptr<SearchStrategy> create_strategy(const std::string& strategy, const nlohmann::json& strategy_params,
                                                const std::string& cost_model,
                                                const nlohmann::json& cost_model_params, int64_t seed,
                                                const std::string& transfer_from) {
  return create_strategy(StrategyChoice{strategy, strategy_params, cost_model, cost_model_params, seed, transfer_from});
}

std::string effective_cost_model(const StrategyChoice& choice) {
  if (is_none(choice.cost_model)) return "none";
  return create_bare_strategy(choice)->uses_cost_model() ? choice.cost_model : "none";
}

std::string ignored_cost_model(const StrategyChoice& choice) {
  if (is_none(choice.cost_model) || effective_cost_model(choice) != "none") return "";
  return "strategy '" + choice.strategy + "' ranks no candidates with a cost model, so cost model '" +
         choice.cost_model + "' is ignored; a strategy that uses one is model_based";
}

std::string run_strategy_label(const StrategyChoice& choice) {
  std::string strategy = plugin_label(choice.strategy, choice.strategy_params);
  if (effective_cost_model(choice) == "none") return strategy;
  return strategy + "+" + plugin_label(choice.cost_model, choice.cost_model_params) +
         (choice.transfer_from.empty() ? "" : "+transfer");
}

std::string run_plugins_key(const StrategyChoice& choice, const std::string& space, const std::string& backend) {
  return plugin_libraries_key({{SearchStrategy::kPluginKind, choice.strategy},
                               {CostModel::kPluginKind, effective_cost_model(choice)},
                               {"space", space},
                               {"backend", backend}});
}

}  // namespace tessel::search
