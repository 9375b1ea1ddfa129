// The tuning loop (search/tuner.h).
#include "search/tuner.h"

#include <iostream>
#include <memory>
#include <optional>

#include "search/progress.h"
#include "search/tuned_config.h"
#include "support/error.h"
#include "support/watchdog.h"

namespace tessel::search {

namespace {

TrialOutcome outcome_of(const TrialRecord& r) { return {r.candidate, r.result.ok(), r.gflops}; }

// Runs `call` into the run's strategy under its time limit (support/watchdog.h), named
// "search strategy '<run's strategy label>' <doing>".
template <typename Call>
auto guarded(const RunKey& run, const TuneOptions& options, const char* doing, Call&& call) {
  // Named as the user wrote it: the run's label without the builds of its plugin libraries
  // (" plugins=<hash>", support/registry.h plugin_libraries_key).
  std::string strategy = run.strategy.substr(0, run.strategy.find(" plugins="));
  return call_plugin("search strategy '" + strategy + "' " + doing, options.plugin_time_limit_s,
                     std::forward<Call>(call));
}

ProgressState progress_of(const TuneReport& r, int64_t total) {
  return {r.trials, total, r.errors, r.best_gflops(), r.speedup(), r.baseline.name};
}

// The run's trials grouped into the batches they were measured in, in order. Trials from before
// batch numbers were recorded (batch 0) come first, as one group.
std::vector<RecordedBatch> batches_of(const std::vector<TrialRecord>& history, RecordedBatch& unnumbered) {
  std::vector<RecordedBatch> batches;
  int64_t current = 0;
  for (const TrialRecord& r : history) {
    if (r.batch == 0) {
      unnumbered.push_back(outcome_of(r));
      continue;
    }
    if (batches.empty() || r.batch != current) batches.emplace_back();
    current = r.batch;
    batches.back().push_back(outcome_of(r));
  }
  return batches;
}

}  // namespace

RunKey make_run_key(const Task& task, std::string strategy, int64_t seed) {
  return {task.workload().name, task.workload().key(), task.target().key(), task.space_name(), std::move(strategy),
          seed};
}

Tuner::Tuner(const Task& task, SearchStrategy& strategy, RunKey run, RecordsDb* db, TuneOptions options)
    : task_(task), strategy_(strategy), run_(std::move(run)), db_(db), options_(std::move(options)) {
  if (options_.trials < 1) user_error("tune: --trials must be >= 1, got ", options_.trials);
  if (options_.batch < 1) user_error("tune: --batch must be >= 1, got ", options_.batch);
  TESSEL_CHECK(run_.workload_key == task.key().workload && run_.target == task.key().target,
               "the run key of ", run_.describe(), " is not one of the task's (make_run_key)");
  guarded(run_, options_, "binding to its task", [&] { strategy_.bind(task_); });
}

void Tuner::account(const TrialRecord& record, TuneReport& report) {
  run_trials_.push_back(record);
  ++report.trials;
  if (!record.result.ok()) ++report.errors;
  else if (!report.best || record.result.timing.median_us < report.best_us()) report.best = record;
  report.curve.push_back(report.best_gflops());
}

std::vector<TrialRecord> checked_run_trials(const Task& task, const RecordsDb& db, const RunKey& run) {
  std::vector<TrialRecord> history = db.run_trials(run);
  for (const TrialRecord& r : history)
    if (!record_names_point(task.space(), r.candidate, r.config))
      user_error("records database '", db.path(), "' holds ", r.candidate.str(), " (", r.config.dump(), ") in trial ",
                 r.trial, " of the run ", run.describe(), ", which is not in the space as it is now; it was recorded ",
                 "with another version of the space: use another --db");
  return history;
}

void Tuner::resume(TuneReport& report) {
  if (!db_) return;
  std::vector<TrialRecord> history = checked_run_trials(task_, *db_, run_);
  for (const TrialRecord& r : history) account(r, report);
  RecordedBatch unnumbered;
  std::vector<RecordedBatch> batches = batches_of(history, unnumbered);
  if (!unnumbered.empty())
    guarded(run_, options_, "learning from the resumed trials", [&] { strategy_.update(unnumbered); });
  report.resume_mismatch =
      guarded(run_, options_, "replaying the resumed trials", [&] { return strategy_.replay_history(batches); });
  if (report.resume_mismatch > 0)
    std::cerr << "note: resuming " << run_.describe() << ": the strategy no longer proposes what batch "
              << report.resume_mismatch << " recorded (its code, parameters or space changed since); the run goes "
              << "on from what was measured, without repeating an uninterrupted run\n";
}

// A later call of run(): the strategy knows the trials already, only the report is rebuilt.
void Tuner::restate(TuneReport& report) {
  std::vector<TrialRecord> done = std::move(run_trials_);
  run_trials_.clear();
  for (const TrialRecord& r : done) account(r, report);
}

std::vector<TrialRecord> Tuner::measure_batch(const std::vector<Candidate>& candidates, int64_t first_trial,
                                              int64_t batch, const MeasureSource& source) const {
  std::vector<MeasureResult> results = source.measure(candidates);
  std::vector<TrialRecord> records;
  for (size_t i = 0; i < candidates.size(); ++i) {
    TrialRecord r;
    r.run = run_;
    r.trial = first_trial + static_cast<int64_t>(i);
    r.batch = batch;
    r.candidate = candidates[i];
    r.config = task_.space().to_json(candidates[i]);
    r.result = results[i];
    r.gflops = results[i].gflops(task_.workload().flops());
    records.push_back(std::move(r));
  }
  return records;
}

// Made on first use and kept: building one compiles the task's default schedule for the
// reference output, once per round of a run tuned in rounds otherwise.
const Measurer& Tuner::hardware() {
  if (!hardware_) hardware_ = std::make_unique<Measurer>(task_, options_.measure);
  return *hardware_;
}

TuneReport Tuner::run(const Baseline& baseline, const MeasureSource* source,
                      const std::function<void(const TuneReport&)>& on_batch) {
  TuneReport report;
  report.baseline = baseline;
  std::optional<RunClaim> claim;
  if (db_) claim.emplace(db_->claim_run(run_));
  if (resumed_) restate(report);
  else resume(report);
  resumed_ = true;
  int64_t batch = run_trials_.empty() ? 0 : run_trials_.back().batch;
  if (!source) source = &hardware();
  ProgressBar bar(options_.progress);
  bar.show(progress_of(report, options_.trials));
  if (on_batch) on_batch(report);
  while (report.trials < options_.trials) {
    size_t n = static_cast<size_t>(std::min<int64_t>(options_.batch, options_.trials - report.trials));
    std::vector<Candidate> candidates =
        guarded(run_, options_, "proposing a batch", [&] { return strategy_.next_batch(n); });
    if (candidates.empty()) break;  // the whole space has been measured
    std::vector<TrialRecord> records = measure_batch(candidates, report.trials + 1, ++batch, *source);
    if (db_) db_->append(records);
    std::vector<TrialOutcome> outcomes;
    for (const TrialRecord& r : records) {
      outcomes.push_back(outcome_of(r));
      account(r, report);
    }
    report.measured += static_cast<int64_t>(records.size());
    guarded(run_, options_, "learning from a measured batch", [&] { strategy_.update(outcomes); });
    bar.show(progress_of(report, options_.trials));
    if (on_batch) on_batch(report);
  }
  bar.finish();
  report.selection = select_final(task_, run_, run_trials_, *source, options_.select);
  if (db_) db_->append_selection(report.selection);
  return report;
}

}  // namespace tessel::search
