// The search options of tune and tune-model (tools/search_options.h).
#include "tools/search_options.h"

#include "backends/backend.h"
#include "support/registry.h"
#include "tools/number_option.h"
#include "tools/target_option.h"

namespace tessel::tools {

void add_search_options(CLI::App* cmd, SearchArgs& args, const std::string& trials_help) {
  add_target_option(cmd, args.target);
  cmd->add_option("--strategy", args.strategy, "search strategy plugin")->capture_default_str();
  cmd->add_option("--param", args.params, "strategy parameter name=value (repeatable)");
  cmd->add_option("--cost-model", args.cost_model, "cost model plugin guiding the strategy (model_based needs one)")
      ->capture_default_str();
  cmd->add_option("--cost-model-param", args.cost_model_params, "cost model parameter name=value (repeatable)");
  cmd->add_option("--backend", args.backend, "code generator plugin measured (tessel plugins lists them)")
      ->capture_default_str();
  cmd->add_option("--backend-param", args.backend_params, "back end parameter name=value (repeatable)");
  cmd->add_option("--transfer-from", args.transfer_from,
                  "records database whose other workloads pre-train the cost model (transfer learning)");
  add_number_option(cmd, "--trials", args.trials, trials_help, limits::trials());
  add_number_option(cmd, "--batch", args.batch, "configurations measured per batch", limits::batch());
  add_number_option(cmd, "--seed", args.seed, "seed of the strategy", limits::seed());
  add_number_option(cmd, "--threads", args.threads, "threads of the kernels and of compilation", limits::threads());
  add_number_option(cmd, "--repeats", args.repeats, "timed samples per candidate", limits::repeats());
  cmd->add_flag("--cache-flush", args.cache_flush,
                "time each sample as one call after the inputs but the first (the weights) are evicted from the "
                "caches, as in a model (AutoTVM's enable_cpu_cache_flush); x86 only");
  add_number_option(cmd, "--timeout", args.timeout_s, "seconds a candidate may run", limits::timeout_s());
  add_number_option(cmd, "--plugin-timeout", args.plugin_timeout_s,
                    "seconds the strategy (with its cost model) may take to propose or learn from one batch; past "
                    "them tuning stops with exit status 2, keeping every measured trial",
                    limits::timeout_s());
  add_number_option(cmd, "--select", args.select,
                    "final selection (per task in tune-model): re-measure this many fastest configurations and the "
                    "default in alternation and choose among them (0: the search's fastest trial)",
                    limits::select());
  add_number_option(cmd, "--default-margin", args.default_margin_pct,
                    "in the final selection, keep the template's default unless it takes at least this many percent "
                    "longer than the fastest (schedules measured alone lose small leads in a model)",
                    limits::percent());
}

search::StrategyChoice strategy_choice(const SearchArgs& args) {
  search::StrategyChoice choice;
  choice.strategy = args.strategy;
  choice.strategy_params = parse_param_assignments(args.params, "--param");
  choice.cost_model = args.cost_model;
  choice.cost_model_params = parse_param_assignments(args.cost_model_params, "--cost-model-param");
  choice.seed = args.seed;
  choice.transfer_from = args.transfer_from;
  return choice;
}

std::string run_label(const search::StrategyChoice& choice, const std::string& space,
                      const search::MeasureOptions& measure) {
  std::string backend = search::backend_label(measure.backend, measure.backend_params);
  return search::run_strategy_label(choice) + (backend.empty() ? "" : " backend=" + backend) +
         (measure.flush_cache ? " cache_flush" : "") + search::run_plugins_key(choice, space, measure.backend);
}

// (The numbers are already checked against their ranges by the options: tools/number_option.h.)
search::TuneOptions tune_options(const SearchArgs& args) {
  search::TuneOptions options;
  options.trials = args.trials;
  options.batch = static_cast<size_t>(args.batch);
  options.measure.threads = args.threads;
  options.measure.compile_threads = args.threads;
  options.measure.repeats = args.repeats;
  options.measure.timeout_s = args.timeout_s;
  options.measure.flush_cache = args.cache_flush;
  options.measure.backend = args.backend;
  options.measure.backend_params = parse_param_assignments(args.backend_params, "--backend-param");
  Registry<Backend>::instance().create(args.backend, options.measure.backend_params);  // checked before measuring
  options.select.candidates = 0;
  options.plugin_time_limit_s = args.plugin_timeout_s;
  return options;
}

}  // namespace tessel::tools
