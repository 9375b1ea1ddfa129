// The tuning loop through the library API: a small run records every trial, finds a correct
// schedule, and re-running it resumes (no configuration measured twice, the trial count goes on).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "search/tuner.h"
#include "support/registry.h"
#include "tests/search/search_test_util.h"
#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::search;

namespace {

TuneReport tune_gemm64(RecordsDb& db, int64_t trials) {
  Task task = Task::create("gemm:64", "template");
  auto strategy = Registry<SearchStrategy>::instance().create("random", {{"seed", 1}});
  TuneOptions options;
  options.trials = trials;
  options.batch = 4;
  options.measure.repeats = 2;
  options.progress = false;
  Tuner tuner(task, *strategy, make_run_key(task, "random", 1), &db, options);
  return tuner.run(Baseline{"fake_blas", 100.0, ""});
}

}  // namespace

TEST_CASE("a small tuning run records its trials and resumes", "[search][tuner]") {
  test::ScratchDir dir;
  RecordsDb db = RecordsDb::open(dir.file("runs.db"));
  TuneReport first = tune_gemm64(db, 8);
  CHECK(first.trials == 8);
  CHECK(first.measured == 8);
  REQUIRE(first.best.has_value());
  CHECK(first.best_gflops() > 0);
  CHECK(first.speedup() == Approx(100.0 / first.best_us()));
  RunKey run = make_run_key(Task::create("gemm:64", "template"), "random", 1);
  std::vector<TrialRecord> recorded = db.run_trials(run);
  REQUIRE(recorded.size() == 8);
  for (size_t i = 0; i < recorded.size(); ++i) CHECK(recorded[i].trial == static_cast<int64_t>(i + 1));
  CHECK(first.errors == std::count_if(recorded.begin(), recorded.end(),
                                      [](const TrialRecord& r) { return !r.result.ok(); }));

  TuneReport again = tune_gemm64(db, 8);  // already done: nothing to measure
  CHECK(again.measured == 0);
  CHECK(again.trials == 8);
  CHECK(again.best_us() == first.best_us());

  TuneReport more = tune_gemm64(db, 12);
  CHECK(more.measured == 4);
  CHECK(more.trials == 12);
  recorded = db.run_trials(run);
  REQUIRE(recorded.size() == 12);
  std::set<uint64_t> configs;
  for (const TrialRecord& r : recorded) configs.insert(r.candidate.index());
  CHECK(configs.size() == 12);
  CHECK(recorded.back().trial == 12);
}

TEST_CASE("tuning options are checked", "[search][tuner]") {
  Task task = Task::create("gemm:64", "template");
  auto strategy = Registry<SearchStrategy>::instance().create("random");
  TuneOptions options;
  options.trials = 0;
  CHECK_THROWS_WITH(Tuner(task, *strategy, make_run_key(task, "random", 0), nullptr, options),
                    Catch::Contains("--trials"));
}

// A space whose knobs change renumbers its points: a recorded index still in range names another
// configuration than the one measured, and only the readable form kept beside it tells.
TEST_CASE("a run whose trial names another point by index than by its readable form is refused",
          "[search][tuner]") {
  test::ScratchDir dir;
  RecordsDb db = RecordsDb::open(dir.file("runs.db"));
  Task task = Task::create("gemm:64", "template");
  RunKey run = make_run_key(task, "random", 0);
  TrialRecord r;
  r.run = run;
  r.trial = 1;
  r.candidate = Candidate::from_index(3);
  r.config = task.space().to_json(Candidate::from_index(3));
  db.append({r});
  CHECK(checked_run_trials(task, db, run).size() == 1);

  r.trial = 2;
  r.candidate = Candidate::from_index(5);
  r.config = task.space().to_json(Candidate::from_index(6));
  db.append({r});
  test::require_user_error([&] { checked_run_trials(task, db, run); }, {"trial 2", "another version of the space"});
  auto strategy = Registry<SearchStrategy>::instance().create("random");
  TuneOptions options;
  options.progress = false;
  Tuner tuner(task, *strategy, run, &db, options);
  test::require_user_error([&] { tuner.run(); }, "not in the space as it is now");
}
