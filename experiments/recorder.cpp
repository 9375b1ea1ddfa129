// Recording whole spaces into recorded sets (experiments/recorder.h).
#include "experiments/recorder.h"

#include <filesystem>

#include "experiments/provenance.h"
#include "search/strategy_factory.h"
#include "support/error.h"

namespace tessel::experiments {

namespace {

// The grid run that measures the whole space.
search::RunKey grid_run(const search::Task& task) { return search::make_run_key(task, "grid", 0); }

// Every configuration of the task, from the database; fails if the grid run has not covered it.
std::vector<search::MeasureResult> whole_space(const search::RecordsDb& db, const search::Task& task) {
  std::vector<search::MeasureResult> results(task.space().size());
  std::vector<bool> seen(results.size(), false);
  for (const search::TrialRecord& r : db.run_trials(grid_run(task))) {
    results[r.candidate.index()] = r.result;
    seen[r.candidate.index()] = true;
  }
  for (size_t i = 0; i < seen.size(); ++i)
    if (!seen[i]) user_error("record: configuration ", i, " was not measured; run the same command again to resume");
  return results;
}

// The grid over the whole space; resumes the grid run already in the database.
void measure_space(const search::Task& task, search::RecordsDb& db, const RecordRequest& r,
                   const search::Baseline& baseline) {
  search::StrategyChoice grid;
  grid.strategy = "grid";
  auto strategy = search::create_strategy(grid);
  search::TuneOptions options;
  options.trials = static_cast<int64_t>(task.space().size());
  options.measure = r.measure;
  options.progress = true;
  search::Tuner(task, *strategy, grid_run(task), &db, options).run(baseline);
}

nlohmann::json provenance(const RecordRequest& r) {
  return {{"date", utc_now()},
          {"cpu", cpu_info()},
          {"git", git_state()},
          {"command", r.command_line},
          {"measure",
           {{"warmup", r.measure.warmup}, {"repeats", r.measure.repeats}, {"threads", r.measure.threads},
            {"timeout_s", r.measure.timeout_s}, {"backend", r.measure.backend}}}};
}

}  // namespace

search::RecordedWorkload record_workload(const RecordRequest& r) {
  if (r.set_path.empty()) user_error("record: a recorded set file (--set FILE.json) is required");
  search::Task task = search::Task::create(r.workload, r.space, nullptr, r.target);
  const search::ConfigSpace& space = task.knob_space("recording a whole space");
  // An existing file must be a set: a foreign file is refused, never overwritten.
  search::RecordedSet set =
      std::filesystem::exists(r.set_path) ? search::RecordedSet::load(r.set_path) : search::RecordedSet(r.set_path);
  search::RecordsDb db = search::RecordsDb::open(r.db_path.empty() ? r.set_path + ".records.db" : r.db_path);
  search::Baseline baseline{"none", 0, ""};
  if (r.measure_baseline) baseline = r.measure_baseline(task.workload(), r.measure.threads, r.measure.flush_cache);
  measure_space(task, db, r, baseline);
  search::RecordedWorkload recorded{r.workload,
                                    r.space,
                                    r.target.key(),
                                    task.target().str(),
                                    search::RecordedWorkload::describe_space(space),
                                    baseline.name,
                                    baseline.median_us,
                                    provenance(r),
                                    whole_space(db, task)};
  set.put(recorded);
  set.save();
  return recorded;
}

}  // namespace tessel::experiments
