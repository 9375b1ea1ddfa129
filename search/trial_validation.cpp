// Checking imported trial records (search/trial_validation.h).
#include "search/trial_validation.h"

#include <cmath>
#include <limits>

#include "support/error.h"

namespace tessel::search {

namespace {

void require_integer(const nlohmann::json& line, const char* field, int64_t min) {
  if (!line.contains(field)) return;  // TrialRecord::from_json reports missing required fields
  const nlohmann::json& v = line.at(field);
  if (!v.is_number_integer() || v.get<int64_t>() < min)
    user_error("\"", field, "\" must be an integer >= ", min, ", got ", v.dump());
}

void require_time(double value, const char* field) {
  if (!std::isfinite(value) || value < 0)
    user_error("\"", field, "\" must be a finite number >= 0, got ", value);
}

void check_numbers(const nlohmann::json& line, const TrialRecord& r) {
  require_integer(line, "trial", 1);
  require_integer(line, "batch", 0);
  require_integer(line, "seed", std::numeric_limits<int64_t>::min());
  require_integer(line, "repeats", 0);
  const TimingStats& t = r.result.timing;
  require_time(t.median_us, "median_us");
  require_time(t.min_us, "min_us");
  require_time(t.max_us, "max_us");
  require_time(t.spread_pct, "spread_pct");
  require_time(r.gflops, "gflops");
  require_time(r.result.max_abs_err, "max_abs_err");
  require_time(r.result.compile_s, "compile_s");
  if (r.result.ok() && !(t.median_us > 0)) user_error("an ok trial must have median_us > 0, got ", t.median_us);
  if (!r.result.ok() && r.gflops != 0) user_error("a trial with status ", status_name(r.result.status),
                                                  " must have gflops 0, got ", r.gflops);
}

// Fills in the workload key (or checks the given one) and the target.
void check_identity(TrialRecord& r) {
  if (r.run.space.empty() || r.run.strategy.empty()) user_error("\"space\" and \"strategy\" must not be empty");
  std::string key = parse_workload(r.run.workload).key();
  if (r.run.workload_key.empty()) r.run.workload_key = key;
  else if (r.run.workload_key != key)
    user_error("\"workload_key\" ", r.run.workload_key, " is not the key of workload ", r.run.workload, " (", key, ")");
  if (r.run.target.empty()) r.run.target = kUnknownTarget;
  else if (r.run.target != kUnknownTarget && Target::parse(r.run.target).key() != r.run.target)
    user_error("\"target\" \"", r.run.target, "\" is not a target key (e.g. \"llvm_cpu -isa=avx2\", or \"",
               kUnknownTarget, "\")");
}

// The candidate, its readable form and its index must name one point of the task's space.
void check_candidate(const nlohmann::json& line, const TrialRecord& r, const Task& task) {
  if (!r.config.is_object())
    user_error("\"config\" must be an object of knob values (as records export writes it), got ", r.config.dump());
  if (!task.space().contains(r.candidate))
    user_error("the candidate ", r.candidate.str(), " is outside the space of ", task.workload().name, " (space ",
               task.space_name(), ")");
  Candidate from_config = task.space().candidate_from_json(r.config);
  if (from_config != r.candidate)
    user_error("the candidate ", r.candidate.str(), " does not match its knob values, which are ", from_config.str());
  if (line.contains("config_index") && line.at("config_index") != r.config_index())
    user_error("\"config_index\" ", line.at("config_index").dump(), " does not match the candidate ", r.candidate.str());
}

}  // namespace

const Task& TaskCatalog::task(const std::string& workload, const std::string& space, const std::string& target_key) {
  std::string key = workload + "\n" + space + "\n" + target_key;
  auto it = tasks_.find(key);
  if (it != tasks_.end()) return *it->second;
  Target target = target_key == kUnknownTarget ? Target::host() : Target::parse(target_key);
  auto task = std::make_unique<Task>(Task::create(workload, space, nullptr, target));
  return *tasks_.emplace(key, std::move(task)).first->second;
}

TrialRecord read_trial_line(const std::string& line, TaskCatalog& tasks) {
  nlohmann::json json = nlohmann::json::parse(line, nullptr, false);
  if (json.is_discarded() || !json.is_object()) user_error("not a JSON object");
  TrialRecord r = TrialRecord::from_json(json);
  check_numbers(json, r);
  check_identity(r);
  check_candidate(json, r, tasks.task(r.run.workload, r.run.space, r.run.target));
  return r;
}

std::vector<TrialRecord> read_trial_lines(std::istream& in, const std::string& source, TaskCatalog& tasks) {
  std::vector<TrialRecord> records;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      records.push_back(read_trial_line(line, tasks));
    } catch (const UserError& e) {
      user_error(source, ":", number, ": ", e.what());
    }
  }
  return records;
}

}  // namespace tessel::search
