// Finding the tuned configuration of a task in a records database: the one lookup `tessel bench
// --tuned`, `tessel tune` and the model compiler use, for any schedule space.
//
// Records are matched by what they compute, not by name: the task's workload key and space (so
// "C6" finds what was tuned as "conv2d:1,128,28,28,128,3,1,1"). Among them the task's target comes
// first; a configuration tuned for another target, or for an unknown one (records from before
// targets were recorded), is used only when there is none for this target, and then visibly
// (fallback_note, and the label names the target it was tuned for). Within a target a final
// selection's choice (search/selection.h) beats the fastest correct trial. A record whose
// candidate no longer fits the task's space (the template changed since) is passed over.
//
//   TunedRecords records = TunedRecords::read("runs.db");
//   if (std::optional<TunedConfig> tuned = records.find(task)) {
//     if (!tuned->same_target) std::cerr << tuned->fallback_note(task) << "\n";
//     Program p = task.program(tuned->candidate);
//   } else if (std::optional<TunedConfig> near = records.find_nearest(task)) { ... }
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "search/records/records_db.h"
#include "search/task/task.h"

namespace tessel::search {

// Whether `candidate` is a point of `space` and `config`, the readable form recorded beside it,
// names that same point. A space whose knobs gained or lost choices numbers its points anew, and
// an index still in range would then name another configuration than the one recorded: resuming
// a run (search/tuner.h) and applying a record of the task's own target both require this.
bool record_names_point(const SearchSpace& space, const Candidate& candidate, const nlohmann::json& config);

struct TunedConfig {
  Candidate candidate;
  nlohmann::json config;       // its readable form, as recorded
  std::string source;          // "selection" (a final selection's choice) or "trial" (fastest correct trial)
  std::string origin;          // of a selection: "search" or "default" (the template's default won)
  std::string record_workload; // the label it was tuned under
  std::string record_target;   // the target key it was tuned for, or kUnknownTarget
  bool same_target = true;     // tuned for the task's target
  Candidate record_candidate;  // the point as recorded (its own space's numbering; candidate is the task's)
  RunKey run;                  // the run it was tuned in

  // "tuned#42", "tuned#42:default"; with "@<target>" when tuned for another target
  // ("tuned#42@unknown-target", "tuned#42@llvm_cpu -isa=avx512").
  std::string label() const;
  // One line saying that a configuration tuned for another target is applied to `task`'s; empty
  // when same_target.
  std::string fallback_note(const Task& task, const std::string& db_path) const;
};

class TunedRecords {
 public:
  // Reads the choices and best trials of every task once (the database is opened for reading).
  static TunedRecords read(const std::string& db_path);
  explicit TunedRecords(const RecordsDb& db);

  // The configuration to run for `task` (see above); nullopt when the database has none that fits.
  std::optional<TunedConfig> find(const Task& task) const;
  // When find has nothing: the configuration of the nearest other workload of the same operator
  // and space (closest shape: the smallest sum of |log(a/b)| over the shapes' sizes, a selection
  // before a trial, the task's target first) whose knob values name a point of `task`'s space;
  // nullopt when no record of the operator fits. record_workload says which shape it was tuned for.
  std::optional<TunedConfig> find_nearest(const Task& task) const;
  // Whether the database has records of `task`'s workload and space at all: when find has nothing,
  // they are of an older version of the space (the template changed since they were tuned).
  bool has_records_of(const Task& task) const;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<SelectionRecord> chosen_;
  std::vector<TrialRecord> best_;
};

}  // namespace tessel::search
