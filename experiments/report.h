// The outputs an experiment computes from its runs: curves.csv (best-so-far GFLOP/s after every
// trial of every run), summary.json and summary.md (per configuration, over its seeds: the mean
// best GFLOP/s and its spread, the vendor baseline beside it, and trials_to_95pct; with a final
// selection, the chosen configurations' re-measured GFLOP/s too).
//
// trials_to_95pct is, for one run, the first trial whose best-so-far reaches 95% of the best
// GFLOP/s found by ANY run of the experiment on the same workload; a configuration reports its
// mean over seeds. A run that never gets there counts with its whole trial budget, which makes the
// mean a lower bound; `reached_95pct` says how many seeds got there, so such a mean is never
// mistaken for a real one.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/experiment_config.h"
#include "search/tuner.h"

namespace tessel::experiments {

struct RunResult {
  RunSpec spec;
  std::vector<double> curve;  // best-so-far GFLOP/s after each trial
  int64_t errors = 0;
  // The final selection's choice (search/selection.h), when the config asks for one: its
  // re-measured GFLOP/s (0: none) and whether it is the template's default configuration.
  double chosen_gflops = 0;
  bool chosen_default = false;
  double best_gflops() const { return curve.empty() ? 0 : curve.back(); }
};

struct WorkloadBaseline {
  search::Baseline baseline;
  double gflops = 0;  // of the baseline: the workload's flops over its time
};

// The first trial (1-based) whose value reaches `target`, or 0 if none does.
int64_t trials_to_reach(const std::vector<double>& curve, double target);

// The key of a configuration's baseline in summarize's map: configurations measured alike share it.
std::string baseline_key(const Configuration& c);

// One JSON object per configuration (the entries of summary.json); `baselines` by baseline_key.
nlohmann::json summarize(const ExperimentConfig& config, const std::vector<RunResult>& runs,
                         const std::map<std::string, WorkloadBaseline>& baselines);

// The report files, each written whole or not at all (support/output_file.h): a failed write throws
// UserError naming the file and leaves any earlier version in place.
void write_curves_csv(const std::string& path, const ExperimentConfig& config, const std::vector<RunResult>& runs);
void write_summary_md(const std::string& path, const ExperimentConfig& config, const nlohmann::json& summary);

}  // namespace tessel::experiments
