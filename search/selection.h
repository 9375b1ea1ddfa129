// The tuner's final choice. A search measures each candidate once, for a few milliseconds, at one
// moment; on a shared machine whose speed drifts, the fastest of hundreds of such measurements is
// partly luck, and a configuration that looked fastest can lose to another (or to the template's
// default schedule) when measured again later. So after the search the tuner re-measures the run's
// fastest few configurations together with the default configuration, in alternation over several
// rounds (each round measures every candidate once, so a slow period hits all of them, each round
// starting at the next candidate, so that none is always the first a fresh runner times), and
// chooses the one with the shortest median over the rounds, the default unless another beats it by
// a margin. `tessel bench --tuned` compiles the chosen configuration.
//
// The margin: a kernel measured alone does not show what its neighbours in a model do to it (which
// core wrote its input, who reads its output, what its weights evicted), and the default schedules
// were chosen in models. MobileNet-V2 on two AVX-512 threads (Zen 4, stop 40), tuned with 2000
// trials: the choices that beat their default alone by 1-4% (eight 1x1 layers, two depthwise) ran
// 1-5 us slower each in the model, those ahead by 6-8% (the 24-channel blocks) 16-19 us faster;
// the tuned model ran 0.997 of the untuned time, 0.989 with the defaults kept under 5%. tune-model
// then times each searched choice in the compiled model itself (compiler/model_check.h).
//
// Nor does it show what its split of the output between the threads costs its neighbours: a line
// one core wrote and the other then reads travels between them. In a model (tune-model on several
// threads) only configurations that split as the default does are chosen
// (SpaceTemplate::splits_as_default). MobileNet-V2 under the AVX2 ceiling, two Zen 4 threads (stop
// 41): 384->96 with channel blocks split, 5% ahead of its default alone, ran 69.5 -> 81.5 us in the
// model, and the depthwise layers after 64->384 so split 8-22% slower; the tuned model 1.016-1.058
// of the untuned time (stop 39: 1.014, and 1.001 with the defaults' split).
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
  // A searched configuration is chosen over the default only when the default's median is at least
  // this fraction longer than its own; 0: the fastest, whatever it is.
  double default_margin = 0.05;
  // Only configurations that give each thread the part of the output the default gives it are
  // candidates (SpaceTemplate::splits_as_default): for a kernel in a model on several threads.
  bool default_split = false;
};

// Re-measures the fastest `options.candidates` Ok trials among `run_trials` (those splitting as the
// default, with options.default_split) and the template's default
// configuration; returns every candidate with its median over the rounds, the fastest marked chosen
// unless the default (when it ran correctly in every round) is within options.default_margin of it;
// none when no candidate ran correctly in every round. Empty when `run_trials` has no Ok trial.
std::vector<SelectionRecord> select_final(const Task& task, const RunKey& run,
                                          const std::vector<TrialRecord>& run_trials, const MeasureSource& source,
                                          const SelectOptions& options);

// The chosen candidate, or null.
const SelectionRecord* chosen_candidate(const std::vector<SelectionRecord>& candidates);

}  // namespace tessel::search
