// The tuning loop: propose a batch → compile and measure it → append it to the records database →
// tell the strategy → repeat until the run has its trials.
//
// A run is identified by (workload, space, strategy, seed). On start the tuner loads the task's
// earlier records from the database: the strategy learns every configuration already measured for
// the task (by any run), so none is measured twice, and the run's own earlier trials count toward
// `trials`, so re-running a killed command resumes where it stopped. An experiment compares runs
// that must not see each other, so it turns `learn_from_other_runs` off: each run then learns only
// its own earlier trials.
//
// With TuneOptions::select on, the run ends with a final selection (selection.h): its fastest
// configurations and the template's default are re-measured in alternation, and the fastest over
// those rounds is the run's choice, recorded in the database's selections table.
//
// Measurements come from a MeasureSource (measure/measure_source.h): by default a hardware
// Measurer made from TuneOptions::measure, or any source given to run(), e.g. a replay of a
// recorded set (replay/replay_measurer.h).
//
//   Task task = Task::create("gemm:256", "template");
//   auto strategy = Registry<SearchStrategy>::instance().create("random");
//   Tuner tuner(task, *strategy, RunKey{"gemm:256", "template", "random", 0}, &db, TuneOptions{});
//   TuneReport report = tuner.run();
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "search/measure/measurer.h"
#include "search/records/records_db.h"
#include "search/selection.h"
#include "search/strategies/search_strategy.h"
#include "search/task/task.h"

namespace tessel::search {

struct TuneOptions {
  int64_t trials = 64;  // of this run, resumed ones included
  size_t batch = 8;
  MeasureOptions measure;
  bool progress = true;  // the progress line (only ever drawn on a terminal)
  bool learn_from_other_runs = true;  // on resume, also tell the strategy other runs' trials
  SelectOptions select{0, 3};  // final selection; off unless select.candidates > 0
  // Seconds the strategy may spend in one call (proposing a batch, learning from one, with its
  // cost model's fit and predict): past it the process ends with a message naming the strategy
  // (support/watchdog.h); the records database keeps every trial measured before.
  double plugin_time_limit_s = 600;
};

// The vendor library's time for the same workload, measured in the same process before tuning.
struct Baseline {
  std::string name;   // "openblas", "onednn"; empty when none was measured
  double median_us = 0;
};

struct TuneReport {
  int64_t trials = 0;    // of the run, resumed ones included
  int64_t measured = 0;  // by this invocation
  int64_t errors = 0;    // trials of the run that were not Ok
  std::optional<TrialRecord> best;  // the run's fastest Ok trial
  Baseline baseline;
  std::vector<double> curve;  // best-so-far GFLOP/s after each trial of the run (0 until one is Ok)
  std::vector<SelectionRecord> selection;  // the final selection's candidates (empty when off)

  double best_us() const { return best ? best->result.timing.median_us : 0; }
  double best_gflops() const { return best ? best->gflops : 0; }
  // The run's choice: the final selection's when it ran, else the search's fastest trial.
  const SelectionRecord* chosen() const { return chosen_candidate(selection); }
  double chosen_us() const { return chosen() ? chosen()->median_us : best_us(); }
  double chosen_gflops() const { return chosen() ? chosen()->gflops : best_gflops(); }
  double speedup() const { return chosen_us() > 0 && baseline.median_us > 0 ? baseline.median_us / chosen_us() : 0; }
};

class Tuner {
 public:
  // `db` may be null (nothing is recorded or resumed). Throws UserError for bad options.
  Tuner(const Task& task, SearchStrategy& strategy, RunKey run, RecordsDb* db, TuneOptions options);
  // `source` null: measure on this machine with options.measure. `on_batch`, when set, sees the
  // report after the resumed trials and after every batch (for progress output).
  TuneReport run(const Baseline& baseline = {}, const MeasureSource* source = nullptr,
                 const std::function<void(const TuneReport&)>& on_batch = {});

 private:
  void resume(TuneReport& report);
  void account(const TrialRecord& record, TuneReport& report);
  std::vector<TrialRecord> measure_batch(const std::vector<uint64_t>& indices, int64_t first_trial,
                                         const MeasureSource& source) const;

  const Task& task_;
  SearchStrategy& strategy_;
  RunKey run_;
  RecordsDb* db_;
  TuneOptions options_;
  std::vector<TrialRecord> run_trials_;  // this run's trials, resumed ones included
};

}  // namespace tessel::search
