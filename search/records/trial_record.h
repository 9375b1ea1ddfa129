// One trial as the records database stores it: which run measured which candidate of which task,
// and what came out. Its JSON form is one line of `tessel records export`.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "search/measure/measure_result.h"
#include "search/spaces/candidate.h"

namespace tessel::search {

// The target of records written before targets were recorded (schema versions 1 and 2, tuned on a
// machine whose target nobody wrote down).
inline constexpr const char* kUnknownTarget = "unknown";

// The run a trial belongs to: re-running the same tune command continues the same run. A run is
// what is tuned, where and how: the workload key (not the name it was given), the target key, the
// space, the strategy (with its parameters) and the seed.
struct RunKey {
  std::string workload;      // the label the run was started under ("C6"); for people, not identity
  std::string workload_key;  // WorkloadSpec::key()
  std::string target;        // Target::key(), or kUnknownTarget
  std::string space, strategy;
  int64_t seed = 0;

  bool same_run(const RunKey& other) const;  // everything but the label
  // "C6 (conv2d/…) on llvm_cpu -isa=avx2, space template, strategy random, seed 0", for messages.
  std::string describe() const;
};

struct TrialRecord {
  RunKey run;
  int64_t trial = 0;        // 1-based position within its run
  int64_t batch = 0;        // 1-based batch of its run; 0 when unknown (records from before schema 3)
  Candidate candidate;      // the point of the task's space
  nlohmann::json config;    // its readable form (SearchSpace::to_json: knob name -> value)
  MeasureResult result;
  double gflops = 0;        // 0 unless the result is Ok
  std::string created_at;   // UTC, ISO 8601; filled in by the database

  // The candidate's index in a numbered space; -1 for a decision list.
  int64_t config_index() const;

  nlohmann::ordered_json to_json() const;
  // The fields as they are, typed: throws UserError naming the missing or mistyped field. Fields
  // added in schema 3 (workload_key, target, batch, candidate) may be missing: they stay empty (the
  // candidate: the one config_index names). Whether the record makes sense for its task is checked
  // by read_trial_line (search/trial_validation.h).
  static TrialRecord from_json(const nlohmann::json& json);
};

// One candidate of a run's final selection (search/selection.h): a configuration re-measured in
// alternation with the other candidates after the search, so that the run's choice does not rest on
// one measurement taken at one moment of a machine whose speed drifts.
struct SelectionRecord {
  RunKey run;
  Candidate candidate;
  nlohmann::json config;      // its readable form
  std::string origin;         // "search" (one of the run's fastest trials) or "default" (the template's)
  int rounds = 0;             // re-measurements, each the median of the measurer's samples
  double median_us = 0;       // median over the rounds; 0 when a round failed
  double gflops = 0;
  bool chosen = false;        // the run's choice: the fastest candidate
  std::string created_at;     // UTC, ISO 8601; filled in by the database

  int64_t config_index() const;  // as TrialRecord's
  nlohmann::ordered_json to_json() const;
};

}  // namespace tessel::search
