// Tuned-configuration lookup (search/tuned_config.h).
#include "search/tuned_config.h"

#include <algorithm>
#include <cmath>

#include "datasets/workloads.h"
#include "ops/block_workload.h"

namespace tessel::search {

namespace {

// 0 for the task's own target, 1 for another known target, 2 for an unknown one.
int target_rank(const std::string& record_target, const Task& task) {
  if (record_target == task.target().key()) return 0;
  return record_target == kUnknownTarget ? 2 : 1;
}

// The point of the task's space a record names by its knob values, if any. Those are what was
// measured, and they still name a point where the space was renumbered since (a knob grown at the
// end, twin choices folded into one: search/spaces/knob.h) or, tuned for another target, is
// numbered differently (spaces follow the vector width and registers); where the record's index
// still agrees, they name that very point.
std::optional<Candidate> in_space(const Task& task, const nlohmann::json& config) {
  try {
    return task.space().candidate_from_record(config);
  } catch (const UserError&) {
    return std::nullopt;
  }
}

// Whether `run` tuned `task`'s workload in its space.
bool of_task(const RunKey& run, const Task& task) {
  return run.workload_key == task.workload().key() && run.space == task.space_name();
}

struct Option {
  int rank;  // target rank × 2 + (0 for a selection, 1 for a trial)
  TunedConfig config;
};

TunedConfig tuned_of(const RunKey& run, const Candidate& c, const nlohmann::json& config, const char* source,
                     std::string origin, const Task& task, const Candidate& recorded) {
  return {c,         config, source, std::move(origin), run.workload, run.target, run.target == task.target().key(),
          recorded, run};
}

// The sizes of a workload's shape, for distances between shapes of one operator; empty for an
// operator without a known shape.
std::vector<double> shape_sizes(const WorkloadSpec& w) {
  if (const auto* s = w.shape_if<Conv2dShape>())
    return {double(s->n), double(s->c), double(s->h), double(s->w), double(s->oc), double(s->kh), double(s->stride),
            double(s->pad + 1)};
  if (const auto* s = w.shape_if<DepthwiseShape>())
    return {double(s->n), double(s->c),      double(s->h),       double(s->w),
            double(s->k), double(s->stride), double(s->pad + 1), double(s->block + 1)};  // the same block first
  if (const auto* s = w.shape_if<GemmShape>()) return {double(s->m), double(s->n), double(s->k)};
  if (const auto* s = w.shape_if<ops::BlockShape>()) {  // chains of as many stages only
    std::vector<double> sizes = {double(s->n), double(s->c), double(s->h), double(s->w), double(s->in_block + 1)};
    for (size_t i = 0; i < s->stages.size(); ++i) {
      const ops::BlockStage& stage = s->stages[i];
      double kind = stage.depthwise ? 1 : 2;  // a depthwise stage is far from a convolution
      sizes.insert(sizes.end(), {kind, double(stage.kernel), double(stage.stride), double(stage.pad + 1),
                                 double(s->channels_at(i + 1))});
    }
    return sizes;
  }
  return {};
}

// The distance between the shapes of two workloads of `task`'s operator; nullopt when the record's
// label does not parse as one (a renamed or out-of-tree operator).
std::optional<double> shape_distance(const Task& task, const std::string& record_label) {
  try {
    WorkloadSpec other = parse_workload(record_label);
    std::vector<double> a = shape_sizes(task.workload()), b = shape_sizes(other);
    if (other.op() != task.workload().op() || a.empty() || a.size() != b.size()) return std::nullopt;
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i) d += std::abs(std::log(a[i] / b[i]));
    return d;
  } catch (const UserError&) {
    return std::nullopt;
  }
}

}  // namespace

bool record_names_point(const SearchSpace& space, const Candidate& candidate, const nlohmann::json& config) {
  if (!space.contains(candidate)) return false;
  try {
    return space.candidate_from_record(config) == candidate;
  } catch (const UserError&) {
    return false;
  }
}

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
  std::vector<Option> options;
  for (const SelectionRecord& c : chosen_) {
    if (!of_task(c.run, task)) continue;  // before parsing the record's configuration
    if (std::optional<Candidate> point = in_space(task, c.config))
      options.push_back({2 * target_rank(c.run.target, task), tuned_of(c.run, *point, c.config, "selection",
                                                                        c.origin, task, c.candidate)});
  }
  for (const TrialRecord& t : best_) {
    if (!of_task(t.run, task)) continue;
    if (std::optional<Candidate> point = in_space(task, t.config))
      options.push_back({2 * target_rank(t.run.target, task) + 1, tuned_of(t.run, *point, t.config, "trial",
                                                                            "", task, t.candidate)});
  }
  if (options.empty()) return std::nullopt;
  return std::min_element(options.begin(), options.end(),
                          [](const Option& a, const Option& b) { return a.rank < b.rank; })
      ->config;
}

bool TunedRecords::has_records_of(const Task& task) const {
  auto ours = [&](const auto& record) { return of_task(record.run, task); };
  return std::any_of(chosen_.begin(), chosen_.end(), ours) || std::any_of(best_.begin(), best_.end(), ours);
}

std::optional<TunedConfig> TunedRecords::find_nearest(const Task& task) const {
  struct Near {
    double distance;
    int rank;
    TunedConfig config;
  };
  std::vector<Near> options;
  auto consider = [&](const RunKey& run, const Candidate& c, const nlohmann::json& config, const char* source,
                      const std::string& origin, int source_rank) {
    if (run.space != task.space_name() || run.workload_key == task.workload().key()) return;
    std::optional<double> distance = shape_distance(task, run.workload);
    if (!distance) return;
    try {  // the knob values, taken into this workload's space
      Candidate point = task.space().candidate_from_record(config);
      options.push_back({*distance, 2 * target_rank(run.target, task) + source_rank,
                         tuned_of(run, point, config, source, origin, task, c)});
    } catch (const UserError&) {  // not valid here: a tile that does not divide this shape
    }
  };
  for (const SelectionRecord& c : chosen_) consider(c.run, c.candidate, c.config, "selection", c.origin, 0);
  for (const TrialRecord& t : best_) consider(t.run, t.candidate, t.config, "trial", "", 1);
  if (options.empty()) return std::nullopt;
  return std::min_element(options.begin(), options.end(), [](const Near& a, const Near& b) {
           return a.distance != b.distance ? a.distance < b.distance : a.rank < b.rank;
         })->config;
}

}  // namespace tessel::search
