// JSON form of trial records (search/records/trial_record.h).
#include "search/records/trial_record.h"

#include "support/error.h"

namespace tessel::search {

nlohmann::ordered_json TrialRecord::to_json() const {
  return {{"workload", run.workload},
          {"space", run.space},
          {"strategy", run.strategy},
          {"seed", run.seed},
          {"trial", trial},
          {"config_index", config_index},
          {"config", config},
          {"status", status_name(result.status)},
          {"median_us", result.timing.median_us},
          {"min_us", result.timing.min_us},
          {"max_us", result.timing.max_us},
          {"spread_pct", result.timing.spread_pct},
          {"repeats", result.timing.repeats},
          {"gflops", gflops},
          {"max_abs_err", result.max_abs_err},
          {"compile_s", result.compile_s},
          {"error", result.error},
          {"created_at", created_at}};
}

nlohmann::ordered_json SelectionRecord::to_json() const {
  return {{"workload", run.workload}, {"space", run.space},     {"strategy", run.strategy},
          {"seed", run.seed},         {"config_index", config_index}, {"config", config},
          {"origin", origin},         {"rounds", rounds},       {"median_us", median_us},
          {"gflops", gflops},         {"chosen", chosen},       {"created_at", created_at}};
}

TrialRecord TrialRecord::from_json(const nlohmann::json& json) {
  auto field = [&](const char* name) -> const nlohmann::json& {
    if (!json.is_object() || !json.contains(name)) user_error("trial record lacks the field \"", name, "\"");
    return json.at(name);
  };
  try {
    TrialRecord r;
    r.run = {field("workload").get<std::string>(), field("space").get<std::string>(),
             field("strategy").get<std::string>(), field("seed").get<int64_t>()};
    r.trial = field("trial").get<int64_t>();
    r.config_index = field("config_index").get<uint64_t>();
    r.config = field("config");
    r.result.status = parse_status(field("status").get<std::string>());
    r.result.timing = {field("median_us").get<double>(), field("min_us").get<double>(), field("max_us").get<double>(),
                       field("spread_pct").get<double>(), field("repeats").get<int>()};
    r.gflops = field("gflops").get<double>();
    r.result.max_abs_err = json.value("max_abs_err", 0.0);
    r.result.compile_s = json.value("compile_s", 0.0);
    r.result.error = json.value("error", std::string());
    r.created_at = json.value("created_at", std::string());
    return r;
  } catch (const nlohmann::json::exception& e) {
    user_error("bad trial record: ", e.what());
  }
}

}  // namespace tessel::search
