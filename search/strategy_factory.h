// Creating a search strategy from names and parameters, the one way the tune command and the
// experiment runner both do it, so that a strategy, its cost model and its transfer data are
// wired the same everywhere.
//
//   StrategyChoice choice;
//   choice.strategy = "model_based";
//   choice.cost_model = "xgboost";
//   choice.seed = 1;
//   std::unique_ptr<SearchStrategy> s = create_strategy(choice);
//   s->bind(task);   // transfer data, if any, is loaded here, for this task
//
// Rules:
//  - Unknown strategy or cost model names, and unknown or mistyped parameters, throw the registry's
//    UserError listing the valid ones.
//  - A strategy that uses a cost model (SearchStrategy::uses_cost_model(), e.g. "model_based") with
//    cost_model "none" throws a UserError saying to pass one (--cost-model / cost_model:).
//  - A cost model given to a strategy that does not use one (random, grid, annealing, genetic, ...)
//    is ignored: it is not even created, so its parameters are not checked either. Callers that
//    report the cost model of a run should report effective_cost_model(), which says "none" then,
//    and tell the user (ignored_cost_model()): tune warns, an experiment config whose cost models
//    no strategy of its grid uses is refused.
//  - `seed` seeds the strategy and the cost model; a "seed" inside strategy_params or
//    cost_model_params is overridden by it, so one number repeats the whole run.
//  - transfer_from, when not empty, names a records database (search/records) whose trials of OTHER
//    workloads in the same space become prior training data of the cost model (search/strategies/transfer.h).
//    The file is opened and checked here; the data is loaded when the strategy is bound to its
//    task. Ignored, like the cost model, by strategies without one.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "search/strategies/search_strategy.h"

namespace tessel::search {

struct StrategyChoice {
  std::string strategy = "random";
  nlohmann::json strategy_params = nullptr;    // a JSON object or null
  std::string cost_model = "none";              // a cost_model plugin name or "none"
  nlohmann::json cost_model_params = nullptr;  // a JSON object or null
  int64_t seed = 0;
  std::string transfer_from;  // records database path; empty: no transfer learning
};

std::unique_ptr<SearchStrategy> create_strategy(const StrategyChoice& choice);

// The same, positionally (the strategy_factory contract of issue 3).
std::unique_ptr<SearchStrategy> create_strategy(const std::string& strategy, const nlohmann::json& strategy_params,
                                                const std::string& cost_model,
                                                const nlohmann::json& cost_model_params, int64_t seed,
                                                const std::string& transfer_from = "");

// The cost model a run with this choice really uses: choice.cost_model when the strategy uses one,
// else "none". Throws like create_strategy for unknown strategy names.
std::string effective_cost_model(const StrategyChoice& choice);

// "" unless the choice names a cost model its strategy does not use; then what a user who gave
// one should be told: that it is ignored, and which strategy uses one (tune warns with it).
std::string ignored_cost_model(const StrategyChoice& choice);

// The strategy name a run with this choice is recorded under (RunKey::strategy), so that runs
// differing in their cost model, parameters or transfer source never resume each other: "random",
// "genetic{pop_size=16}", "model_based+xgboost", "model_based+xgboost{rounds=50}+transfer" (the seed
// is the run key's own field, so a "seed" parameter is left out).
std::string run_strategy_label(const StrategyChoice& choice);

// What a run's key adds for the plugin libraries it uses (support/registry.h
// plugin_libraries_key): the builds of the libraries its strategy, the cost model it uses, its
// schedule space and its back end come from; "" when all are built in.
std::string run_plugins_key(const StrategyChoice& choice, const std::string& space, const std::string& backend);

}  // namespace tessel::search
