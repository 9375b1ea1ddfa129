// The search options `tessel tune` and `tessel tune-model` share: strategy and cost model with
// their parameters, back end, transfer source, trials, database, batch, seed, threads, repeats, time
// limits and the final selection; one spelling, one default and one range for each, and the run label both give their
// runs, so the two commands continue each other's runs of a workload.
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "search/strategy_factory.h"
#include "search/tuner.h"

namespace tessel::tools {

struct SearchArgs {
  std::string strategy = "random", db, target = "llvm_cpu";
  std::vector<std::string> params;  // key=value for the strategy
  std::string cost_model = "none", transfer_from;
  std::vector<std::string> cost_model_params;  // key=value for the cost model
  std::string backend = search::MeasureOptions{}.backend;
  std::vector<std::string> backend_params;  // key=value for the back end
  int64_t trials = 64, batch = 8, seed = 0;
  int threads = 2, repeats = 5;
  int select = 4;  // the final selection's candidates (search/selection.h); 0: the search's fastest
  double default_margin_pct = 100 * search::SelectOptions{}.default_margin;  // SelectOptions::default_margin
  bool cache_flush = false;  // search::MeasureOptions::flush_cache
  double timeout_s = 10, plugin_timeout_s = search::TuneOptions{}.plugin_time_limit_s;
};

// Adds the options above to `cmd`; `trials_help` says what --trials counts for this command.
void add_search_options(CLI::App* cmd, SearchArgs& args, const std::string& trials_help);

search::StrategyChoice strategy_choice(const SearchArgs& args);

// The tuner's options (no final selection); checks the back end and its parameters.
search::TuneOptions tune_options(const SearchArgs& args);

// The run's name in the records: the strategy's label and, unless it is the default, the back end
// (the form experiment labels have) and "cache_flush" for runs measured with the caches flushed,
// so that runs measuring differently generated code, or measuring differently, never resume each
// other; and the builds of the plugin libraries it uses (strategy, cost model, the
// schedule space `space`, back end), so that neither do runs of a rebuilt plugin.
std::string run_label(const search::StrategyChoice& choice, const std::string& space,
                      const search::MeasureOptions& measure);

}  // namespace tessel::tools
