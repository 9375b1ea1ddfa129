// The tuning loop (search/tuner.h).
#include "search/tuner.h"

#include <memory>

#include "search/progress.h"
#include "support/error.h"
#include "support/watchdog.h"

namespace tessel::search {

namespace {

TrialOutcome outcome_of(const TrialRecord& r) { return {r.config_index, r.result.ok(), r.gflops}; }

bool same_run(const RunKey& a, const RunKey& b) {
  return a.workload == b.workload && a.space == b.space && a.strategy == b.strategy && a.seed == b.seed;
}

// Runs `call` into the run's strategy under its time limit (support/watchdog.h), named
// "search strategy '<run's strategy label>' <doing>".
template <typename Call>
auto guarded(const RunKey& run, const TuneOptions& options, const char* doing, Call&& call) {
  return call_plugin("search strategy '" + run.strategy + "' " + doing, options.plugin_time_limit_s,
                     std::forward<Call>(call));
}

ProgressState progress_of(const TuneReport& r, int64_t total) {
  return {r.trials, total, r.errors, r.best_gflops(), r.speedup(), r.baseline.name};
}

}  // namespace

Tuner::Tuner(const Task& task, SearchStrategy& strategy, RunKey run, RecordsDb* db, TuneOptions options)
    : task_(task), strategy_(strategy), run_(std::move(run)), db_(db), options_(std::move(options)) {
  if (options_.trials < 1) user_error("tune: --trials must be >= 1, got ", options_.trials);
  if (options_.batch < 1) user_error("tune: --batch must be >= 1, got ", options_.batch);
  guarded(run_, options_, "binding to its task", [&] { strategy_.bind(task_); });
}

void Tuner::account(const TrialRecord& record, TuneReport& report) {
  run_trials_.push_back(record);
  ++report.trials;
  if (!record.result.ok()) ++report.errors;
  else if (!report.best || record.result.timing.median_us < report.best_us()) report.best = record;
  report.curve.push_back(report.best_gflops());
}

void Tuner::resume(TuneReport& report) {
  if (!db_) return;
  std::vector<TrialRecord> history = db_->task_trials(run_.workload, run_.space);
  std::vector<TrialOutcome> known;
  for (const TrialRecord& r : history) {
    if (r.config_index >= task_.space().size())
      user_error("records database '", db_->path(), "' holds configuration ", r.config_index, " of '", run_.workload,
                 "' but the space '", run_.space, "' has only ", task_.space().size(),
                 "; it was recorded with another version of the space: use another --db");
    bool own = same_run(r.run, run_);
    if (own || options_.learn_from_other_runs) known.push_back(outcome_of(r));
    if (own) account(r, report);
  }
  guarded(run_, options_, "learning from the resumed trials", [&] { strategy_.update(known); });
}

std::vector<TrialRecord> Tuner::measure_batch(const std::vector<uint64_t>& indices, int64_t first_trial,
                                              const MeasureSource& source) const {
  std::vector<Config> configs;
  for (uint64_t index : indices) configs.push_back(task_.space().get(index));
  std::vector<MeasureResult> results = source.measure(configs);
  std::vector<TrialRecord> records;
  for (size_t i = 0; i < configs.size(); ++i) {
    TrialRecord r;
    r.run = run_;
    r.trial = first_trial + static_cast<int64_t>(i);
    r.config_index = indices[i];
    r.config = configs[i].to_json()["knobs"];
    r.result = results[i];
    r.gflops = results[i].gflops(task_.workload().flops());
    records.push_back(std::move(r));
  }
  return records;
}

TuneReport Tuner::run(const Baseline& baseline, const MeasureSource* source,
                      const std::function<void(const TuneReport&)>& on_batch) {
  TuneReport report;
  report.baseline = baseline;
  run_trials_.clear();
  resume(report);
  std::unique_ptr<Measurer> hardware;
  if (!source) source = (hardware = std::make_unique<Measurer>(task_, options_.measure)).get();
  ProgressBar bar(options_.progress);
  bar.show(progress_of(report, options_.trials));
  if (on_batch) on_batch(report);
  while (report.trials < options_.trials) {
    size_t n = static_cast<size_t>(std::min<int64_t>(options_.batch, options_.trials - report.trials));
    std::vector<uint64_t> indices =
        guarded(run_, options_, "proposing a batch", [&] { return strategy_.next_batch(n); });
    if (indices.empty()) break;  // the whole space has been measured
    std::vector<TrialRecord> records = measure_batch(indices, report.trials + 1, *source);
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
