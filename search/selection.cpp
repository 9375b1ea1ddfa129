// The tuner's final selection (search/selection.h).
#include "search/selection.h"

#include <algorithm>
#include <set>

#include "support/error.h"
#include "support/timing.h"

namespace tessel::search {

namespace {

// The fastest `count` distinct configurations among the Ok trials that `eligible` keeps, fastest first.
template <typename Eligible>
std::vector<const TrialRecord*> fastest_trials(const std::vector<TrialRecord>& trials, int count,
                                               Eligible eligible) {
  std::vector<const TrialRecord*> ok;
  for (const TrialRecord& t : trials)
    if (t.result.ok() && eligible(t)) ok.push_back(&t);
  std::stable_sort(ok.begin(), ok.end(), [](const TrialRecord* a, const TrialRecord* b) {
    return a->result.timing.median_us < b->result.timing.median_us;
  });
  std::vector<const TrialRecord*> out;
  std::set<Candidate> seen;
  for (const TrialRecord* t : ok) {
    if (static_cast<int>(out.size()) == count) break;
    if (seen.insert(t->candidate).second) out.push_back(t);
  }
  return out;
}

SelectionRecord selection_candidate(const Task& task, const RunKey& run, const Candidate& c, const char* origin) {
  SelectionRecord s;
  s.run = run;
  s.candidate = c;
  s.config = task.space().to_json(c);
  s.origin = origin;
  return s;
}

}  // namespace

std::vector<SelectionRecord> select_final(const Task& task, const RunKey& run,
                                          const std::vector<TrialRecord>& run_trials, const MeasureSource& source,
                                          const SelectOptions& options) {
  if (options.candidates < 0 || options.rounds < 1 || !(options.default_margin >= 0))
    user_error("final selection: needs candidates >= 0, rounds >= 1 and a margin >= 0, got ", options.candidates,
               ", ", options.rounds, " and ", options.default_margin);
  // No selection without a correct trial; with some but none eligible, the default alone.
  bool any_ok = std::any_of(run_trials.begin(), run_trials.end(), [](const TrialRecord& t) { return t.result.ok(); });
  if (options.candidates == 0 || !any_ok) return {};
  std::vector<const TrialRecord*> fastest = fastest_trials(run_trials, options.candidates, [&](const TrialRecord& t) {
    return !options.default_split || task.space_template().splits_as_default(t.candidate);
  });
  Candidate default_candidate = task.default_candidate();
  std::vector<Candidate> configs;
  std::vector<SelectionRecord> candidates;
  bool default_found = false;
  for (const TrialRecord* t : fastest) {
    bool is_default = t->candidate == default_candidate;
    default_found |= is_default;
    configs.push_back(t->candidate);
    candidates.push_back(selection_candidate(task, run, t->candidate, is_default ? "default" : "search"));
  }
  if (!default_found) {
    configs.push_back(default_candidate);
    candidates.push_back(selection_candidate(task, run, default_candidate, "default"));
  }

  std::vector<std::vector<double>> times(configs.size());
  std::vector<bool> failed(configs.size(), false);
  for (int round = 0; round < options.rounds; ++round) {
    // Each round starts at another candidate, so that no one of them is always measured first.
    std::vector<size_t> slots(configs.size());
    std::vector<Candidate> order;
    for (size_t j = 0; j < configs.size(); ++j) {
      slots[j] = (j + round) % configs.size();
      order.push_back(configs[slots[j]]);
    }
    std::vector<MeasureResult> results = source.measure(order);
    for (size_t j = 0; j < order.size(); ++j) {
      if (results[j].ok()) times[slots[j]].push_back(results[j].timing.median_us);
      else failed[slots[j]] = true;
    }
  }
  double flops = task.workload().flops();
  for (size_t i = 0; i < candidates.size(); ++i) {
    candidates[i].rounds = options.rounds;
    if (failed[i]) continue;  // a candidate must run correctly every time to be chosen
    candidates[i].median_us = summarize(times[i]).median_us;
    candidates[i].gflops = flops / candidates[i].median_us * 1e-3;
  }
  SelectionRecord* best = nullptr;
  SelectionRecord* fallback = nullptr;  // the default, when it ran correctly every round
  for (SelectionRecord& c : candidates) {
    if (c.median_us <= 0) continue;
    if (c.candidate == default_candidate) fallback = &c;
    if (!best || c.median_us < best->median_us) best = &c;
  }
  if (best && fallback && best->median_us * (1 + options.default_margin) > fallback->median_us) best = fallback;
  if (best) best->chosen = true;
  return candidates;
}

const SelectionRecord* chosen_candidate(const std::vector<SelectionRecord>& candidates) {
  for (const SelectionRecord& c : candidates)
    if (c.chosen) return &c;
  return nullptr;
}

}  // namespace tessel::search
