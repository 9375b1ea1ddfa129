// The task-scheduler plugin interface (kind "task_scheduler"): how `tessel tune-model` spends one
// trial budget over the tuning tasks of a model (one per distinct anchor workload,
// compiler/model_tasks.h), a round of trials at a time.
//
// A scheduler sees each task's weight (how many of the model's groups run it) and its history (its
// trial count and best latency after each round) and names the task the next round goes to. It
// must decide from what it is shown alone, so a resumed tune-model (histories rebuilt from the
// records database) goes on as it would have. Two are registered:
//  - round_robin: the task with the fewest trials (ties: the first), i.e. each in turn;
//  - gradient (Ansor's, Zheng et al. OSDI 2020): after a warm-up round for every task, the task
//    whose next trials are expected to cut the model's latency most: weight × (alpha × its recent
//    improvement per trial over the last `window` rounds + (1 − alpha) × its best latency over its
//    trial count, the optimistic average rate).
//
//   auto scheduler = Registry<TaskScheduler>::instance().create("gradient", {{"alpha", 0.2}});
//   size_t i = scheduler->next(progress);   // then tune tasks[i] for another round
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tessel::search {

// A task as the scheduler sees it.
struct TaskProgress {
  struct Point {
    int64_t trials = 0;  // the task's trials so far
    double best_us = 0;  // its fastest correct trial then; 0 while none is correct
  };
  std::string name;
  double weight = 1;            // how many of the model's groups run the task
  std::vector<Point> history;   // after each round it was given (the first may be a resumed run); empty: none yet

  int64_t trials() const { return history.empty() ? 0 : history.back().trials; }
  double best_us() const { return history.empty() ? 0 : history.back().best_us; }
};

class TaskScheduler {
 public:
  static constexpr const char* kPluginKind = "task_scheduler";
  virtual ~TaskScheduler() = default;
  // The index into `tasks` (not empty) of the task the next round of trials goes to.
  virtual size_t next(const std::vector<TaskProgress>& tasks) const = 0;
};

}  // namespace tessel::search
