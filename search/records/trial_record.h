// One trial as the records database stores it: which run measured which configuration of which
// task, and what came out. Its JSON form is one line of `tessel records export`.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "search/measure/measure_result.h"

namespace tessel::search {

// The run a trial belongs to: re-running the same tune command continues the same run.
struct RunKey {
  std::string workload, space, strategy;
  int64_t seed = 0;
};

struct TrialRecord {
  RunKey run;
  int64_t trial = 0;          // 1-based position within its run
  uint64_t config_index = 0;  // in the task's space
  nlohmann::json config;      // the knob values (Config::to_json()["knobs"])
  MeasureResult result;
  double gflops = 0;          // 0 unless the result is Ok
  std::string created_at;     // UTC, ISO 8601; filled in by the database

  nlohmann::ordered_json to_json() const;
  // Throws UserError naming the missing or mistyped field.
  static TrialRecord from_json(const nlohmann::json& json);
};

// One candidate of a run's final selection (search/selection.h): a configuration re-measured in
// alternation with the other candidates after the search, so that the run's choice does not rest on
// one measurement taken at one moment of a machine whose speed drifts.
struct SelectionRecord {
  RunKey run;
  uint64_t config_index = 0;
  nlohmann::json config;      // the knob values
  std::string origin;         // "search" (one of the run's fastest trials) or "default" (the template's)
  int rounds = 0;             // re-measurements, each the median of the measurer's samples
  double median_us = 0;       // median over the rounds; 0 when a round failed
  double gflops = 0;
  bool chosen = false;        // the run's choice: the fastest candidate
  std::string created_at;     // UTC, ISO 8601; filled in by the database

  nlohmann::ordered_json to_json() const;
};

}  // namespace tessel::search
