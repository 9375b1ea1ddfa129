// JSON form of trial records (search/records/trial_record.h).
#include "search/records/trial_record.h"

#include <limits>

#include "support/error.h"

namespace tessel::search {

namespace {

int64_t index_or_minus_one(const Candidate& c) { return c.is_index() ? static_cast<int64_t>(c.index()) : -1; }

nlohmann::ordered_json run_json(const RunKey& run) {
  return {{"workload", run.workload}, {"workload_key", run.workload_key}, {"target", run.target},
          {"space", run.space},       {"strategy", run.strategy},         {"seed", run.seed}};
}

}  // namespace

bool RunKey::same_run(const RunKey& other) const {
  return workload_key == other.workload_key && target == other.target && space == other.space &&
         strategy == other.strategy && seed == other.seed;
}

std::string RunKey::describe() const {
  return workload + " (" + workload_key + ") on " + target + ", space " + space + ", strategy " + strategy +
         ", seed " + std::to_string(seed);
}

int64_t TrialRecord::config_index() const { return index_or_minus_one(candidate); }
int64_t SelectionRecord::config_index() const { return index_or_minus_one(candidate); }

nlohmann::ordered_json TrialRecord::to_json() const {
  nlohmann::ordered_json j = run_json(run);
  j["trial"] = trial;
  j["batch"] = batch;
  j["config_index"] = config_index();
  j["candidate"] = candidate.to_json();
  j["config"] = config;
  j["status"] = status_name(result.status);
  j["median_us"] = result.timing.median_us;
  j["min_us"] = result.timing.min_us;
  j["max_us"] = result.timing.max_us;
  j["spread_pct"] = result.timing.spread_pct;
  j["repeats"] = result.timing.repeats;
  j["gflops"] = gflops;
  j["max_abs_err"] = result.max_abs_err;
  j["compile_s"] = result.compile_s;
  j["error"] = result.error;
  j["created_at"] = created_at;
  return j;
}

nlohmann::ordered_json SelectionRecord::to_json() const {
  nlohmann::ordered_json j = run_json(run);
  j["config_index"] = config_index();
  j["candidate"] = candidate.to_json();
  j["config"] = config;
  j["origin"] = origin;
  j["rounds"] = rounds;
  j["median_us"] = median_us;
  j["gflops"] = gflops;
  j["chosen"] = chosen;
  j["created_at"] = created_at;
  return j;
}

TrialRecord TrialRecord::from_json(const nlohmann::json& json) {
  if (!json.is_object()) user_error("a trial record must be a JSON object, got ", json.type_name());
  auto field = [&](const char* name) -> const nlohmann::json& {
    if (!json.contains(name)) user_error("trial record lacks the field \"", name, "\"");
    return json.at(name);
  };
  // nlohmann converts a float to an integer without a range check (undefined for 1e20): refuse it.
  auto integer = [&](const char* name) -> int64_t {
    const nlohmann::json& v = field(name);
    if (!v.is_number_integer()) user_error("trial record field \"", name, "\" must be an integer, got ", v.dump());
    return v.get<int64_t>();
  };
  // Narrowed unchecked, 2^32 + 5 repeats would come back as 5.
  auto repeat_count = [&]() -> int {
    int64_t repeats = integer("repeats");
    if (repeats < 0 || repeats > std::numeric_limits<int>::max())
      user_error("trial record field \"repeats\" must be a count of timed samples, got ", repeats);
    return static_cast<int>(repeats);
  };
  try {
    TrialRecord r;
    r.run = {field("workload").get<std::string>(), json.value("workload_key", std::string()),
             json.value("target", std::string()),  field("space").get<std::string>(),
             field("strategy").get<std::string>(), integer("seed")};
    r.trial = integer("trial");
    r.batch = json.contains("batch") ? integer("batch") : 0;
    r.candidate = Candidate::from_json(json.contains("candidate") ? json.at("candidate") : field("config_index"));
    r.config = field("config");
    r.result.status = parse_status(field("status").get<std::string>());
    r.result.timing = {field("median_us").get<double>(), field("min_us").get<double>(), field("max_us").get<double>(),
                       field("spread_pct").get<double>(), repeat_count()};
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
