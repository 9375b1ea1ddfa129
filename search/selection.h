// The tuner's final choice. A search measures each candidate once, for a few milliseconds, at one
// moment; on a shared machine whose speed drifts, the fastest of hundreds of such measurements is
// partly luck, and a configuration that looked fastest can lose to another (or to the template's
// default schedule) when measured again later. So after the search the tuner re-measures the run's
// fastest few configurations together with the default configuration, in alternation over several
// rounds (each round measures every candidate once, so a slow period hits all of them, each round
// starting at the next candidate, so that none is always the first a fresh runner times), and
// chooses the one with the shortest median over the rounds. `tessel bench --tuned` compiles the
// chosen configuration.
//
//   std::vector<SelectionRecord> candidates = select_final(task, run, run_trials, measurer, {4, 3});
//   const SelectionRecord* chosen = chosen_candidate(candidates);
#pragma once
#include <vector>

#include "search/measure/measure_source.h"
#include "search/records/trial_record.h"
#include "search/task/task.h"

namespace tessel::search {

struct SelectOptions {
  int candidates = 4;  // the run's fastest distinct configurations re-measured (0: no selection)
  int rounds = 3;      // measurements of every candidate, alternating
};

// Re-measures the fastest `options.candidates` Ok trials among `run_trials` and the template's default
// configuration; returns every candidate with its median over the rounds, the fastest marked chosen
// (none when no candidate ran correctly in every round). Empty when `run_trials` has no Ok trial.
std::vector<SelectionRecord> select_final(const Task& task, const RunKey& run,
                                          const std::vector<TrialRecord>& run_trials, const MeasureSource& source,
                                          const SelectOptions& options);

// The chosen candidate, or null.
const SelectionRecord* chosen_candidate(const std::vector<SelectionRecord>& candidates);

}  // namespace tessel::search
