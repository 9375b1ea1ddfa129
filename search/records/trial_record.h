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

}  // namespace tessel::search
