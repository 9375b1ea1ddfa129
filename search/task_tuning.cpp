// Tuning a model's tasks with one budget (search/task_tuning.h).
#include "search/task_tuning.h"

#include <memory>

#include "support/error.h"

namespace tessel::search {

namespace {

// A task's trial count and best correct latency among its run's trials.
TaskProgress::Point point_of(const std::vector<TrialRecord>& run_trials) {
  TaskProgress::Point p;
  for (const TrialRecord& r : run_trials) {
    ++p.trials;
    double us = r.result.timing.median_us;
    if (r.result.ok() && (p.best_us == 0 || us < p.best_us)) p.best_us = us;
  }
  return p;
}

// A task's strategy and tuner, made at its first round and kept for the others, so that each
// round goes on from the last (the strategy's cost model, its features, its random state) instead
// of replaying the run's whole history (Tuner::run), which for a model_based strategy re-runs every
// earlier round's annealing: MobileNet-V2's resumed tune spent 89% of its time there.
struct TaskRun {
  std::unique_ptr<SearchStrategy> strategy;
  std::unique_ptr<Tuner> tuner;
};

}  // namespace

std::vector<TaskProgress> tune_tasks(const std::vector<WeightedTask>& tasks, const TaskScheduler& scheduler,
                                     RecordsDb& db, const TaskTuningOptions& options,
                                     const std::function<void(int, const std::vector<TaskProgress>&)>& on_round) {
  if (tasks.empty()) user_error("tune: there are no tasks to tune");
  if (options.round < 1) user_error("tune: the round must be at least 1 trial, got ", options.round);
  std::vector<RunKey> runs;
  std::vector<TaskRun> task_runs(tasks.size());
  std::vector<TaskProgress> progress;
  int64_t recorded = 0;
  for (const WeightedTask& t : tasks) {
    runs.push_back(make_run_key(t.task, options.run_label, options.strategy.seed));
    TaskProgress p{t.task.workload().name, t.weight, {}};
    TaskProgress::Point point = point_of(db.run_trials(runs.back()));
    if (point.trials > 0) p.history.push_back(point);
    recorded += point.trials;
    progress.push_back(std::move(p));
  }
  if (on_round) on_round(-1, progress);
  std::vector<size_t> open(tasks.size());  // tasks whose spaces still have candidates
  for (size_t i = 0; i < open.size(); ++i) open[i] = i;
  while (recorded < options.trials && !open.empty()) {
    std::vector<TaskProgress> shown;
    for (size_t i : open) shown.push_back(progress[i]);
    size_t pick = scheduler.next(shown);
    TESSEL_CHECK(pick < open.size(), "the task scheduler named task ", pick, " of ", open.size());
    size_t i = open[pick];
    if (!task_runs[i].tuner) {
      TuneOptions tune = options.tune;
      tune.select.candidates = 0;  // once at the end (select_tasks), not after every round
      task_runs[i].strategy = create_strategy(options.strategy);
      task_runs[i].tuner = std::make_unique<Tuner>(tasks[i].task, *task_runs[i].strategy, runs[i], &db, tune);
    }
    int64_t length = progress[i].trials() + std::min(options.round, options.trials - recorded);
    task_runs[i].tuner->extend_to(length);
    TuneReport report = task_runs[i].tuner->run();
    progress[i].history.push_back({report.trials, report.best_us()});
    recorded += report.measured;
    if (report.measured == 0 || report.trials < length) open.erase(open.begin() + pick);  // space exhausted
    if (on_round) on_round(static_cast<int>(i), progress);
  }
  return progress;
}

std::vector<std::vector<SelectionRecord>> select_tasks(
    const std::vector<WeightedTask>& tasks, RecordsDb& db, const TaskTuningOptions& options,
    const std::function<void(size_t, const std::vector<SelectionRecord>&)>& on_task) {
  std::vector<std::vector<SelectionRecord>> chosen;
  for (size_t i = 0; i < tasks.size(); ++i) {
    RunKey run = make_run_key(tasks[i].task, options.run_label, options.strategy.seed);
    std::vector<TrialRecord> trials = checked_run_trials(tasks[i].task, db, run);
    chosen.emplace_back();
    if (options.select.candidates == 0 || point_of(trials).best_us == 0) continue;
    // The selection needs the run's trials only, not its strategy's state.
    RunClaim claim = db.claim_run(run);
    Measurer measurer(tasks[i].task, options.tune.measure);
    chosen.back() = select_final(tasks[i].task, run, trials, measurer, options.select);
    db.append_selection(chosen.back());
    if (on_task) on_task(i, chosen.back());
  }
  return chosen;
}

}  // namespace tessel::search
