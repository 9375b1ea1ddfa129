// Tuning several tasks with one trial budget, a round at a time, the task of each round named by a
// task scheduler (search/task_scheduler.h): what `tessel tune-model` runs over a model's tasks.
//
// Each task is one tuning run (search/tuner.h) in the records database, keyed like `tessel tune`'s
// (make_run_key with the strategy label and seed), so the two commands continue each other's runs.
// A round extends the task's run by `round` trials. Each task keeps one Tuner over its rounds:
// the first round resumes the run from the database (its strategy replays the recorded batches),
// later rounds go on in memory, so rounds measure what one long run would.
// The budget counts every trial of the tasks' runs, those recorded before included: re-running
// with the same budget measures nothing new, with a larger one goes on. A task whose space is
// exhausted gets no more rounds.
//
//   std::vector<WeightedTask> tasks = ...;   // compiler/model_tasks.h
//   auto scheduler = Registry<TaskScheduler>::instance().create("gradient");
//   std::vector<TaskProgress> done = tune_tasks(tasks, *scheduler, db, options, print_round);
#pragma once
#include <functional>
#include <vector>

#include "search/records/records_db.h"
#include "search/strategy_factory.h"
#include "search/task/task.h"
#include "search/task_scheduler.h"
#include "search/tuner.h"

namespace tessel::search {

struct WeightedTask {
  Task task;
  double weight = 1;  // how many groups of the model run it
};

struct TaskTuningOptions {
  int64_t trials = 200;     // in all, over every task; recorded trials of their runs count
  int64_t round = 16;       // trials a round gives its task
  StrategyChoice strategy;  // one per task, kept over its rounds
  std::string run_label;    // the strategy label of the runs' keys (tessel tune's run_label)
  TuneOptions tune;         // batch, measurement, plugin time limit; `trials` and `select` are set here
  SelectOptions select{4, 3};  // select_tasks' final selection
};

// Tunes `tasks` (not empty) until `options.trials` are recorded over them or every space is
// exhausted; returns every task's progress, in the order given. `on_round` (when set) sees the
// index of the task just tuned and everyone's progress, after the resumed state (index -1) and
// after each round. Throws UserError for bad options or as the tuner does.
std::vector<TaskProgress> tune_tasks(const std::vector<WeightedTask>& tasks, const TaskScheduler& scheduler,
                                     RecordsDb& db, const TaskTuningOptions& options,
                                     const std::function<void(int, const std::vector<TaskProgress>&)>& on_round = {});

// Ends each task's run with tessel tune's final selection (search/selection.h): its fastest
// `options.select.candidates` configurations and the template's default re-measured in alternation,
// the fastest chosen and recorded in the database, where compile --records finds it. Without it a
// model would run each operator's luckiest single measurement, which on a shared machine can lose
// to the default schedule. Tasks without a correct trial are skipped. `on_task` (when set) sees each
// task's index and its candidates. Returns the candidates per task, in the order given.
std::vector<std::vector<SelectionRecord>> select_tasks(
    const std::vector<WeightedTask>& tasks, RecordsDb& db, const TaskTuningOptions& options,
    const std::function<void(size_t, const std::vector<SelectionRecord>&)>& on_task = {});

}  // namespace tessel::search
