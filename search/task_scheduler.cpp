// The round_robin and gradient task schedulers (search/task_scheduler.h).
#include "search/task_scheduler.h"

#include <algorithm>
#include <memory>

#include "support/registry.h"

namespace tessel::search {

namespace {

// The first task with the fewest trials.
size_t fewest_trials(const std::vector<TaskProgress>& tasks) {
  return std::min_element(tasks.begin(), tasks.end(),
                          [](const TaskProgress& a, const TaskProgress& b) { return a.trials() < b.trials(); }) -
         tasks.begin();
}

class RoundRobin : public TaskScheduler {
 public:
  size_t next(const std::vector<TaskProgress>& tasks) const override { return fewest_trials(tasks); }
};

class Gradient : public TaskScheduler {
 public:
  Gradient(double alpha, int64_t window) : alpha_(alpha), window_(window) {}

  size_t next(const std::vector<TaskProgress>& tasks) const override {
    for (size_t i = 0; i < tasks.size(); ++i)  // warm-up: every task one round first
      if (tasks[i].trials() == 0) return i;
    size_t best = 0;
    double best_gain = -1;
    for (size_t i = 0; i < tasks.size(); ++i) {
      double gain = tasks[i].weight * improvement_rate(tasks[i]);
      if (gain > best_gain) best = i, best_gain = gain;
    }
    return best;
  }

  // Microseconds of the task's latency expected to go per trial.
  double improvement_rate(const TaskProgress& t) const {
    if (t.best_us() <= 0) return 0;  // nothing correct yet: no latency to cut as far as is known
    const TaskProgress::Point& now = t.history.back();
    const TaskProgress::Point& then = t.history[t.history.size() - 1 - std::min<size_t>(window_, t.history.size() - 1)];
    double recent = 0;
    if (now.trials > then.trials && then.best_us > 0)
      recent = (then.best_us - now.best_us) / double(now.trials - then.trials);
    double average = now.best_us / double(now.trials);
    return alpha_ * recent + (1 - alpha_) * average;
  }

 private:
  double alpha_;
  int64_t window_;
};

}  // namespace

TESSEL_REGISTER_PLUGIN(TaskScheduler, round_robin,
                       "each task in turn: the next round to the task with the fewest trials",
                       std::vector<ParamSpec>{}, [](const PluginParams&) { return std::make_unique<RoundRobin>(); });

TESSEL_REGISTER_PLUGIN(
    TaskScheduler, gradient,
    "Ansor's: after a warm-up round each, the task whose improvement would cut the model's latency most "
    "(weight x expected improvement per trial)",
    (std::vector<ParamSpec>{
        {"alpha", ParamType::Float, 0.2,
         "weight of the recent improvement rate against the average one (best / trials)",
         Allowed::at_least(0).at_most(1)},
        {"window", ParamType::Int, 3, "rounds the recent improvement rate looks back over", Allowed::at_least(1)}}),
    [](const PluginParams& p) { return std::make_unique<Gradient>(p.get_float("alpha"), p.get_int("window")); });

}  // namespace tessel::search
