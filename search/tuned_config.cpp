// Tuned-configuration lookup (search/tuned_config.h).
#include "search/tuned_config.h"

#include <algorithm>

namespace tessel::search {

namespace {

// 0 for the task's own target, 1 for another known target, 2 for an unknown one.
int target_rank(const std::string& record_target, const Task& task) {
  if (record_target == task.target().key()) return 0;
  return record_target == kUnknownTarget ? 2 : 1;
}

// The point of the task's space a record names, if any. A record of the task's own target must
// name it by both its candidate and its readable form (anything else means the space changed since);
// one tuned for another target, whose space may be numbered differently (spaces follow the vector
// width and registers), is taken by its knob values.
std::optional<Candidate> in_space(const Task& task, const std::string& record_target, const Candidate& candidate,
                                  const nlohmann::json& config) {
  try {
    Candidate named = task.space().candidate_from_json(config);
    if (record_target != task.target().key()) return named;
    if (task.space().contains(candidate) && named == candidate) return candidate;
  } catch (const UserError&) {
  }
  return std::nullopt;
}

struct Option {
  int rank;  // target rank × 2 + (0 for a selection, 1 for a trial)
  TunedConfig config;
};

TunedConfig tuned_of(const RunKey& run, const Candidate& c, const nlohmann::json& config, const char* source,
                     std::string origin, const Task& task) {
  return {c, config, source, std::move(origin), run.workload, run.target, run.target == task.target().key()};
}

}  // namespace

std::string TunedConfig::label() const {
  std::string out = "tuned" + candidate.str() + (origin == "default" ? ":default" : "");
  if (!same_target) out += "@" + (record_target == kUnknownTarget ? std::string("unknown-target") : record_target);
  return out;
}

std::string TunedConfig::fallback_note(const Task& task, const std::string& db_path) const {
  if (same_target) return "";
  std::string tuned_for = record_target == kUnknownTarget
                              ? std::string("an unknown target (recorded before targets were)")
                              : "target '" + record_target + "'";
  return "note: " + task.workload().name + ": " + db_path + " has no configuration tuned for '" +
         task.target().key() + "'; using " + label() + ", tuned for " + tuned_for + " as " + record_workload;
}

TunedRecords TunedRecords::read(const std::string& db_path) {
  return TunedRecords(RecordsDb::open(db_path, RecordsDb::Access::ReadOnly));
}

TunedRecords::TunedRecords(const RecordsDb& db)
    : path_(db.path()), chosen_(db.chosen_per_task()), best_(db.best_per_task()) {}

std::optional<TunedConfig> TunedRecords::find(const Task& task) const {
  auto ours = [&](const RunKey& run) {
    return run.workload_key == task.workload().key() && run.space == task.space_name();
  };
  std::vector<Option> options;
  for (const SelectionRecord& c : chosen_)
    if (std::optional<Candidate> point = in_space(task, c.run.target, c.candidate, c.config); point && ours(c.run))
      options.push_back({2 * target_rank(c.run.target, task), tuned_of(c.run, *point, c.config, "selection",
                                                                        c.origin, task)});
  for (const TrialRecord& t : best_)
    if (std::optional<Candidate> point = in_space(task, t.run.target, t.candidate, t.config); point && ours(t.run))
      options.push_back({2 * target_rank(t.run.target, task) + 1, tuned_of(t.run, *point, t.config, "trial",
                                                                            "", task)});
  if (options.empty()) return std::nullopt;
  return std::min_element(options.begin(), options.end(),
                          [](const Option& a, const Option& b) { return a.rank < b.rank; })
      ->config;
}

}  // namespace tessel::search
