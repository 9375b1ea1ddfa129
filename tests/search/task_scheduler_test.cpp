// Task schedulers (search/task_scheduler.h) on made-up task histories, and tune_tasks
// (search/task_tuning.h) spending one budget over two tiny GEMM tasks and resuming from the
// records database.
#include "search/task_scheduler.h"

#include <catch2/catch.hpp>

#include "search/task_tuning.h"
#include "support/registry.h"
#include "tests/search/search_test_util.h"
#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::search;

namespace {

TaskProgress task(const std::string& name, double weight, std::vector<TaskProgress::Point> history) {
  return {name, weight, std::move(history)};
}

std::unique_ptr<TaskScheduler> scheduler(const std::string& name, const nlohmann::json& params = nullptr) {
  return Registry<TaskScheduler>::instance().create(name, params);
}

}  // namespace

TEST_CASE("round_robin gives the next round to the task with the fewest trials, the first on ties",
          "[search][task_scheduler]") {
  auto rr = scheduler("round_robin");
  CHECK(rr->next({task("a", 1, {{16, 5}}), task("b", 9, {{16, 1}}), task("c", 1, {{16, 3}})}) == 0);
  CHECK(rr->next({task("a", 1, {{32, 5}}), task("b", 9, {{16, 1}}), task("c", 1, {{16, 3}})}) == 1);
  CHECK(rr->next({task("a", 1, {{32, 5}}), task("b", 9, {{32, 1}}), task("c", 1, {})}) == 2);
}

TEST_CASE("gradient warms every task up first, then picks the largest weighted expected gain",
          "[search][task_scheduler]") {
  auto g = scheduler("gradient", {{"alpha", 1.0}, {"window", 1}});  // the recent rate alone
  SECTION("warm-up: a task never tuned goes first") {
    CHECK(g->next({task("a", 1, {{16, 5}, {32, 1}}), task("b", 1, {})}) == 1);
  }
  SECTION("weight x recent improvement per trial") {
    // a: 100 -> 90 us over 16 trials (0.625 us/trial) x 1; b: 50 -> 48 (0.125) x 8 = 1.0
    std::vector<TaskProgress> tasks = {task("a", 1, {{16, 100}, {32, 90}}), task("b", 8, {{16, 50}, {32, 48}})};
    CHECK(g->next(tasks) == 1);
    tasks[1].weight = 4;  // 0.5 < 0.625
    CHECK(g->next(tasks) == 0);
  }
  SECTION("a task that stopped improving yields to one that still does") {
    std::vector<TaskProgress> tasks = {task("a", 2, {{16, 100}, {32, 100}}), task("b", 1, {{16, 10}, {32, 9}})};
    CHECK(g->next(tasks) == 1);
  }
  SECTION("with alpha 0 the optimistic average rate (best / trials) decides") {
    auto avg = scheduler("gradient", {{"alpha", 0.0}});
    std::vector<TaskProgress> tasks = {task("a", 1, {{16, 100}, {32, 100}}), task("b", 1, {{16, 10}, {32, 9}})};
    CHECK(avg->next(tasks) == 0);  // 100/32 > 9/32
  }
  SECTION("a task with nothing correct yet has no latency to cut") {
    CHECK(g->next({task("a", 5, {{16, 0}, {32, 0}}), task("b", 1, {{16, 10}, {32, 9}})}) == 1);
  }
}

TEST_CASE("task scheduler parameters are checked by the registry", "[search][task_scheduler]") {
  test::require_user_error([&] { scheduler("gradient", {{"alpha", 2.0}}); }, "alpha");
  test::require_user_error([&] { scheduler("gradient", {{"window", 0}}); }, "window");
  test::require_user_error([&] { scheduler("fastest_first"); }, "round_robin");
}

TEST_CASE("tune_tasks spends one budget over the tasks, counting and resuming recorded trials",
          "[search][task_scheduler][measure]") {
  test::ScratchDir dir;
  RecordsDb db = RecordsDb::open(dir.file("runs.db"));
  std::vector<WeightedTask> tasks = {{Task::create("gemm:4,8,2", "template"), 2},
                                     {Task::create("gemm:4,16,2", "template"), 1}};
  TaskTuningOptions options;
  options.trials = 6;
  options.round = 2;
  options.run_label = "random";
  options.tune.batch = 2;
  options.tune.progress = false;
  options.tune.measure.repeats = 1;
  std::vector<int> order;
  auto rr = scheduler("round_robin");
  std::vector<TaskProgress> done =
      tune_tasks(tasks, *rr, db, options, [&](int i, const std::vector<TaskProgress>&) { order.push_back(i); });
  CHECK(order == std::vector<int>{-1, 0, 1, 0});
  CHECK(done[0].trials() == 4);
  CHECK(done[1].trials() == 2);
  CHECK(done[0].weight == 2);
  CHECK(done[0].best_us() > 0);
  CHECK(db.all().size() == 6);
  // The same budget again measures nothing; a larger one goes on from the recorded trials.
  order.clear();
  done = tune_tasks(tasks, *rr, db, options, [&](int i, const std::vector<TaskProgress>&) { order.push_back(i); });
  CHECK(order == std::vector<int>{-1});
  CHECK(done[0].trials() == 4);
  options.trials = 8;
  done = tune_tasks(tasks, *rr, db, options);
  CHECK(done[1].trials() == 4);
  CHECK(db.all().size() == 8);
  // The runs are tune's: the same key resumes them (trial numbers continue).
  CHECK(db.run_trials(make_run_key(tasks[1].task, "random", 0)).back().trial == 4);
}

TEST_CASE("select_tasks refuses a run recorded in another version of the space", "[search][task_scheduler]") {
  test::ScratchDir dir;
  RecordsDb db = RecordsDb::open(dir.file("runs.db"));
  std::vector<WeightedTask> tasks = {{Task::create("gemm:4,8,2", "template"), 1}};
  TaskTuningOptions options;
  options.run_label = "random";
  TrialRecord r;
  r.run = make_run_key(tasks[0].task, "random", 0);
  r.trial = 1;
  r.candidate = Candidate::from_index(tasks[0].task.space().size() + 5);
  r.config = nlohmann::json::object();
  db.append({r});
  test::require_user_error([&] { select_tasks(tasks, db, options); }, "not in the space");
}

TEST_CASE("tune_tasks refuses bad options", "[search][task_scheduler]") {
  test::ScratchDir dir;
  RecordsDb db = RecordsDb::open(dir.file("runs.db"));
  TaskTuningOptions options;
  options.round = 0;
  std::vector<WeightedTask> tasks = {{Task::create("gemm:4,8,2", "template"), 1}};
  test::require_user_error([&] { tune_tasks(tasks, *scheduler("round_robin"), db, options); }, "round");
  options.round = 1;
  test::require_user_error([&] { tune_tasks({}, *scheduler("round_robin"), db, options); }, "no tasks");
}
