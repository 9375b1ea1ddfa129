// Tuning a model's tasks with one budget (search/task_tuning.h).
#include "search/task_tuning.h"

#include "support/error.h"

namespace tessel::search {

namespace {

// A task's trial count and best correct latency as its run in the database has them.
TaskProgress::Point recorded_point(const RecordsDb& db, const RunKey& run) {
  TaskProgress::Point p;
  for (const TrialRecord& r : db.run_trials(run)) {
    ++p.trials;
    double us = r.result.timing.median_us;
    if (r.result.ok() && (p.best_us == 0 || us < p.best_us)) p.best_us = us;
  }
  return p;
}

}  // namespace

std::vector<TaskProgress> tune_tasks(const std::vector<WeightedTask>& tasks, const TaskScheduler& scheduler,
                                     RecordsDb& db, const TaskTuningOptions& options,
                                     const std::function<void(int, const std::vector<TaskProgress>&)>& on_round) {
  if (tasks.empty()) user_error("tune: there are no tasks to tune");
  if (options.round < 1) user_error("tune: the round must be at least 1 trial, got ", options.round);
  std::vector<RunKey> runs;
  std::vector<TaskProgress> progress;
  int64_t recorded = 0;
  for (const WeightedTask& t : tasks) {
    runs.push_back(make_run_key(t.task, options.run_label, options.strategy.seed));
    TaskProgress p{t.task.workload().name, t.weight, {}};
    TaskProgress::Point point = recorded_point(db, runs.back());
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
    TuneOptions tune = options.tune;
    tune.trials = progress[i].trials() + std::min(options.round, options.trials - recorded);
    tune.select.candidates = 0;  // once at the end (select_tasks), not after every round
    auto strategy = create_strategy(options.strategy);
    TuneReport report = Tuner(tasks[i].task, *strategy, runs[i], &db, tune).run();
    progress[i].history.push_back({report.trials, report.best_us()});
    recorded += report.measured;
    if (report.measured == 0 || report.trials < tune.trials) open.erase(open.begin() + pick);  // space exhausted
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
    TaskProgress::Point point = recorded_point(db, run);
    chosen.emplace_back();
    if (options.select.candidates == 0 || point.best_us == 0) continue;
    // A run resumed at its recorded length measures no new trial, only the selection.
    TuneOptions tune = options.tune;
    tune.trials = point.trials;
    tune.select = options.select;
    auto strategy = create_strategy(options.strategy);
    chosen.back() = Tuner(tasks[i].task, *strategy, run, &db, tune).run().selection;
    if (on_task) on_task(i, chosen.back());
  }
  return chosen;
}

}  // namespace tessel::search
