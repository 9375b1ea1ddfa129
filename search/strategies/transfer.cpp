// Prior training data from the records of other workloads (search/strategies/transfer.h).
#include "search/strategies/transfer.h"

#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "costmodels/cost_model.h"
#include "support/error.h"

namespace tessel::search {

namespace {

// The best throughput of each distinct configuration of one workload, in first-recorded order.
struct WorkloadTrials {
  std::string label;                      // the name the first of them was recorded under
  std::vector<const TrialRecord*> first;  // one record per configuration
  std::map<Candidate, double> best_gflops;
};

// The operator of a workload key ("conv2d/…" → "conv2d"); older records of workloads this build
// cannot parse are keyed "name:<label>" and have none.
std::string key_operator(const std::string& key) {
  size_t slash = key.find('/');
  return key.rfind("name:", 0) == 0 || slash == std::string::npos ? "" : key.substr(0, slash);
}

// Trials of the target's space grouped by workload key, left out: the target's own workload, and
// workloads of other operators (whose templates have other knobs and loop nests).
std::map<std::string, WorkloadTrials> group_other_workloads(const std::vector<TrialRecord>& records, const Task& target) {
  std::map<std::string, WorkloadTrials> groups;
  for (const TrialRecord& r : records) {
    const std::string& key = r.run.workload_key;
    if (r.run.space != target.space_name() || key == target.workload().key() ||
        key_operator(key) != target.workload().op())
      continue;
    WorkloadTrials& g = groups[key];
    if (g.label.empty()) g.label = r.run.workload;
    auto [it, fresh] = g.best_gflops.try_emplace(r.candidate, r.gflops);
    if (fresh) g.first.push_back(&r);
    else it->second = std::max(it->second, r.gflops);
  }
  return groups;
}

std::optional<Task> recreate_task(const std::string& workload, const Task& target) {
  try {
    return Task::create(workload, target.space_name(), nullptr, target.target());
  } catch (const UserError& e) {
    std::cerr << "transfer: skipping the records of " << workload << ": " << e.what() << "\n";
    return std::nullopt;
  }
}

// Appends one workload's configurations (features, normalized throughput) to `out`.
void add_workload(const std::string& workload, const WorkloadTrials& trials, const Task& task,
                  size_t max_per_workload, TrainingData& out) {
  std::vector<ProgramFeatures> features;
  std::vector<double> gflops;
  size_t skipped = 0;
  for (const TrialRecord* r : trials.first) {
    if (max_per_workload > 0 && features.size() >= max_per_workload) break;
    try {
      features.push_back(extract_features(task.lower(task.space().candidate_from_json(r->config))));
      gflops.push_back(trials.best_gflops.at(r->candidate));
    } catch (const UserError&) {
      ++skipped;  // recorded by an older version of the space
    }
  }
  if (skipped > 0)
    std::cerr << "transfer: skipped " << skipped << " configurations of " << workload << " that no longer fit the space\n";
  if (features.empty()) return;
  std::vector<double> normalized = normalized_throughput(gflops);
  out.features.insert(out.features.end(), std::make_move_iterator(features.begin()),
                      std::make_move_iterator(features.end()));
  out.throughput.insert(out.throughput.end(), normalized.begin(), normalized.end());
  out.workloads.push_back(workload);
}

}  // namespace

TrainingData load_transfer_data(const RecordsDb& db, const Task& target, size_t max_per_workload) {
  std::vector<TrialRecord> records = db.all();
  TrainingData out;
  for (const auto& [key, trials] : group_other_workloads(records, target)) {
    std::optional<Task> task = recreate_task(trials.label, target);
    if (task) add_workload(trials.label, trials, *task, max_per_workload, out);
  }
  return out;
}

namespace {
RecordsDb open_existing(const std::string& path) {
  if (!std::filesystem::exists(path))
    user_error("transfer learning: records database \"", path,
               "\" does not exist; pass the --db file of earlier tuning runs (tessel tune --db ...)");
  return RecordsDb::open(path, RecordsDb::Access::ReadOnly);
}
}  // namespace

TransferSource::TransferSource(const std::string& db_path, size_t max_per_workload)
    : db_(open_existing(db_path)), max_per_workload_(max_per_workload) {}

TrainingData TransferSource::load(const Task& target) const { return load_transfer_data(db_, target, max_per_workload_); }

}  // namespace tessel::search
