// The experiment runner behind `tessel experiment run`: runs every configuration of a config
// (experiment_config.h) once per seed and writes the outputs into one folder:
//   manifest.json  the config, the expanded runs, seeds, git commit, library versions, CPU, time,
//                  and each --plugin library with the hash of its file (also in its runs' keys)
//   records.db     every trial (search/records), which is also what makes re-running resume
//   curves.csv     best-so-far GFLOP/s after each trial of each run
//   summary.json   per configuration: mean best GFLOP/s, spread, baseline, trials_to_95pct
//   summary.md     the same as a table
//   plots/*.png|svg  best-so-far against trials, one line per configuration (plot_curves.py)
//
// Runs are independent: a run learns only from its own trials, never from other runs that share
// the database. Re-running the same command resumes: finished runs are read back, not measured
// again, and an interrupted run continues from its last complete batch.
//
// A model experiment (ExperimentConfig::models) instead measures each model configuration once,
// through options.measure_model, and writes manifest.json, summary.json ({"models": [...]}),
// summary.md and plots/<model>.png|svg (latency bars with libtorch's); it is quick and re-running
// measures again.
//
// Measurement is per configuration: "hardware" compiles and times on this machine (baseline from
// the caller's callback, measured once per workload), "replay:<set>" answers from a recorded set
// and reports the baseline recorded with it.
#pragma once
#include <functional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "experiments/experiment_config.h"
#include "search/tuner.h"

namespace tessel::experiments {

struct RunnerOptions {
  std::string out_dir;
  // Measures the vendor library on a workload (hardware runs only); unset: no baseline.
  std::function<search::Baseline(const search::WorkloadSpec&, int threads, bool flush_cache)> measure_baseline;
  nlohmann::json extra_libraries = nlohmann::json::object();  // more versions for the manifest
  nlohmann::json environment = nlohmann::json::object();      // the manifest's: what the measurements ran under
  std::string command_line;                                   // for the manifest
  bool plots = true;
  std::ostream* progress = nullptr;  // one line per batch; null: quiet
  // Model experiments: compiles and measures one configuration with `repeats` samples, returning
  // bench-model's JSON object (tessel_ms, baseline_ms when libtorch ran, speedup, correct, ...).
  std::function<nlohmann::json(const ModelConfiguration&, int repeats)> measure_model;
};

// Returns summary.json's content. Throws UserError for problems the user can fix (an output
// folder that cannot be written, a foreign records.db).
nlohmann::json run_experiment(const ExperimentConfig& config, const RunnerOptions& options);

}  // namespace tessel::experiments
