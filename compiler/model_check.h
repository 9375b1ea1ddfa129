// tune-model's check of its choices in the model. The final selection (search/selection.h) times
// each task's configurations alone; in the compiled model a choice can still lose, to what its
// neighbours do to its caches (a chunked Winograd product re-reading its transformed weights when
// the previous layer has filled the L2: ResNet-18 on Zen 3, stop 49, each chosen configuration 9-25%
// faster alone, the tuned model 1.117x the untuned time). So each choice is also timed where it
// runs: the model compiled with it and with its groups on their default schedule, the two modules
// compared and timed in alternation in the sandbox (search/measure/model_sandbox.h), and the
// choice kept only if the model is faster with it beyond the rounds' noise. A choice set aside is
// recorded in the database as its run's choice of the default (its latest selection's default
// candidate, chosen), where `tessel compile --records` finds it.
//
// The choices are checked one at a time, in the order of the model's tasks, each against the
// model as the checks before it left it (greedy: a choice that loses only beside another, kept,
// is found; two that each lose alone but win together are not). When a task's choice is set aside
// and the database then offers another run's searched choice for it (compile takes the fastest
// alone over the runs), that one is checked next, until a choice is kept or the default runs.
//
// A record serves every thread count (the target's key has none), but a choice that gains on two
// threads can lose on one (stop 50: a Winograd choice kept on two threads ran the model at 1.025 of
// its default's time on one). check_choices_at_thread_counts checks at each count a module will
// run on.
//
//   std::vector<ChoiceCheck> checks = check_choices_in_model(opt, target, tasks, db, options, print);
//   checks = check_choices_at_thread_counts(graph, pipeline, target, {2, 1}, db, options, print);
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "passes/graph/graph_pass.h"
#include "search/measure/runner.h"
#include "search/records/records_db.h"
#include "search/task_tuning.h"
#include "target/target.h"

namespace tessel {

struct ModelCheckOptions {
  search::RunOptions run;  // threads, warm-up and timed runs per model and round, tolerance, time limit
  int rounds = 30;         // alternating rounds per choice
  // A choice is kept only when the model with it is faster than with the default by `margin`, beyond
  // the noise: the ratio of their times, per round, has a median whose 95% interval (the sign test's,
  // support/statistics.h) lies at or below 1 - margin. Fewer than 6 rounds cannot show 95%; their
  // interval is the whole range.
  double margin = 0;
};

struct ChoiceCheck {
  std::string workload;  // the task's workload
  std::string record;    // the chosen configuration's record ("#42")
  // Median and range over the rounds of (model time with the choice) / (model time with the
  // default), and the median's interval (its coverage in `confidence`); 0 when not measured.
  double ratio = 0, low = 0, high = 0;
  double median_low = 0, median_high = 0, confidence = 0;
  double with_ms = 0, without_ms = 0;  // the medians of the two models' times over the rounds
  int threads = 0;                     // the threads the models ran on (options.run.threads)
  bool kept = false;
  std::string note;  // when not measured: why (the modules differ in their outputs, the runner died)
};

// Checks every task of `tasks` whose records in `db` apply a final selection's searched choice to
// the model `opt` compiles into for `target` (see above); `on_check` (when set) sees each check as
// it ends. A choice that cannot be measured (the two modules' outputs differ, a module crashes or
// hangs) is set aside too. Returns the checks in order.
std::vector<ChoiceCheck> check_choices_in_model(const graph::OptimizedGraph& opt, const Target& target,
                                                const std::vector<search::WeightedTask>& tasks, search::RecordsDb& db,
                                                const ModelCheckOptions& options,
                                                const std::function<void(const ChoiceCheck&)>& on_check = {});

// check_choices_in_model at each of `thread_counts` in turn, in that order, with `g` optimized by
// `pipeline` for `target` on that many threads (the passes size blocks and shares for the threads)
// and its tasks found anew. A choice stays only if the model gains from it at every count: one set
// aside at a count is not checked at the later ones. (A choice another run offers once the first is
// set aside is checked from that count on.) Throws UserError for a count below 1.
std::vector<ChoiceCheck> check_choices_at_thread_counts(const graph::Graph& g, const std::vector<std::string>& pipeline,
                                                        const Target& target, const std::vector<int>& thread_counts,
                                                        search::RecordsDb& db, const ModelCheckOptions& options,
                                                        const std::function<void(const ChoiceCheck&)>& on_check = {});

}  // namespace tessel
