// The tuning loop: propose a batch → compile and measure it → append it to the records database →
// tell the strategy → repeat until the run has its trials.
//
// A run is identified by its RunKey (records/trial_record.h): the workload key and target of the
// task, the space, the strategy label and the seed; make_run_key builds it. While it runs, the run
// is claimed in the database, so the same run started twice at once is refused.
//
// Resuming is deterministic: on start the tuner reads the run's own earlier trials and replays
// them through the strategy batch by batch (SearchStrategy::replay_history), the same calls the
// run made before it stopped, so a run killed at any point and resumed measures exactly the
// candidates an uninterrupted run with the same seed measures. Only the run's own trials count:
// other runs of the same task (other seeds or strategies) are not told to the strategy, since that
// would make a run's choices depend on what else the database holds. (So two runs may measure the
// same candidate; transfer learning, search/transfer.h, is the way to learn from other runs.)
// If the strategy no longer proposes what was recorded (its code or parameters changed), the run
// goes on from the recorded candidates and says so on stderr.
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
//   Tuner tuner(task, *strategy, make_run_key(task, "random", 0), &db, TuneOptions{});
//   TuneReport report = tuner.run();
#pragma once
#include <functional>
#include <memory>
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
  std::string isa;    // what the library says it ran: OpenBLAS's core ("Haswell"), oneDNN's ISA ("avx2")
};

struct TuneReport {
  int64_t trials = 0;    // of the run, resumed ones included
  int64_t measured = 0;  // by this invocation
  int64_t errors = 0;    // trials of the run that were not Ok
  std::optional<TrialRecord> best;  // the run's fastest Ok trial
  Baseline baseline;
  std::vector<double> curve;  // best-so-far GFLOP/s after each trial of the run (0 until one is Ok)
  std::vector<SelectionRecord> selection;  // the final selection's candidates (empty when off)
  size_t resume_mismatch = 0;  // first resumed batch the strategy proposed differently (0: none)

  double best_us() const { return best ? best->result.timing.median_us : 0; }
  double best_gflops() const { return best ? best->gflops : 0; }
  // The run's choice: the final selection's when it ran, else the search's fastest trial.
  const SelectionRecord* chosen() const { return chosen_candidate(selection); }
  double chosen_us() const { return chosen() ? chosen()->median_us : best_us(); }
  double chosen_gflops() const { return chosen() ? chosen()->gflops : best_gflops(); }
  double speedup() const { return chosen_us() > 0 && baseline.median_us > 0 ? baseline.median_us / chosen_us() : 0; }
};

// The key of a run of `task` (its workload label, workload key, target key and space) with a
// strategy label (run_strategy_label, search/strategy_factory.h) and seed.
RunKey make_run_key(const Task& task, std::string strategy, int64_t seed);

// The trials of `run` in `db`. Throws UserError naming the database if one holds a candidate
// outside `task`'s space, or one its readable form does not name (recorded with another version
// of the space).
std::vector<TrialRecord> checked_run_trials(const Task& task, const RecordsDb& db, const RunKey& run);

class Tuner {
 public:
  // `db` may be null (nothing is recorded or resumed). `run` must be a key of `task`
  // (make_run_key). Throws UserError for bad options.
  Tuner(const Task& task, SearchStrategy& strategy, RunKey run, RecordsDb* db, TuneOptions options);
  // `source` null: measure on this machine with options.measure. `on_batch`, when set, sees the
  // report after the resumed trials and after every batch (for progress output). The first call
  // resumes the run from the database; a later one (after extend_to) goes on from where the
  // previous call stopped, the strategy keeping what it learned, so a run tuned in rounds
  // (task_tuning.h) replays its history once, not once per round.
  TuneReport run(const Baseline& baseline = {}, const MeasureSource* source = nullptr,
                 const std::function<void(const TuneReport&)>& on_batch = {});
  // Sets the run's length (TuneOptions::trials) for the next call of run().
  void extend_to(int64_t trials) { options_.trials = trials; }

 private:
  const Measurer& hardware();
  void resume(TuneReport& report);
  void restate(TuneReport& report);
  void account(const TrialRecord& record, TuneReport& report);
  std::vector<TrialRecord> measure_batch(const std::vector<Candidate>& candidates, int64_t first_trial, int64_t batch,
                                         const MeasureSource& source) const;

  const Task& task_;
  SearchStrategy& strategy_;
  RunKey run_;
  RecordsDb* db_;
  TuneOptions options_;
  std::vector<TrialRecord> run_trials_;  // this run's trials, resumed ones included
  bool resumed_ = false;                 // run() has read the database's trials into the strategy
  std::unique_ptr<Measurer> hardware_;   // this machine, for the calls of run() given no source
};

}  // namespace tessel::search
