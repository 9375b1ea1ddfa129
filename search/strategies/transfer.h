// Transfer learning (AutoTVM §5): the trials other workloads left in a records database become
// prior training data for the cost model of a new tuning run, so the model ranks candidates well
// before the new workload has measured much. It works because the model sees features of the
// lowered loop program (costmodels/features.h), not knob values, and those mean the same thing for
// every workload.
//
// For each OTHER workload of the same operator recorded in the same space as the target (same op
// and space name, another workload key), the task is re-created for the target's target with
// Task::create(workload, space, nullptr, target), each distinct configuration is lowered and its features
// extracted, and its throughput is divided by the best of that workload, so that a fast and a slow
// workload weigh alike (failed trials count 0). The model-based strategy adds this data to every
// fit.
//
//   TransferSource source("runs.db");             // opens and checks the file now
//   TrainingData prior = source.load(task);       // lowers and extracts: takes a while
//
// Other operators are left out: measured on this machine's recorded sets, a GEMM model trained on
// convolutions and depthwise layers ranked GEMM candidates worse than no prior data at all.
// Records whose workload or configuration no longer parse (an older space, a foreign workload
// name) are skipped with a note on stderr rather than failing the new run.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "costmodels/features.h"
#include "search/records/records_db.h"
#include "search/task/task.h"

namespace tessel::search {

// Training data for a cost model: features and throughput, index for index.
struct TrainingData {
  std::vector<ProgramFeatures> features;
  std::vector<double> throughput;  // normalized to [0, 1] per workload
  std::vector<std::string> workloads;  // the workloads the data came from, in load order

  size_t size() const { return features.size(); }
};

// The prior data of `target` from `db` (see above). `max_per_workload` > 0 keeps only that many
// configurations per workload (the first recorded), to bound the lowering time.
TrainingData load_transfer_data(const RecordsDb& db, const Task& target, size_t max_per_workload = 0);

// A records database chosen as the source of transfer data, opened (and checked to be a Tessel
// records database: UserError otherwise) when constructed and read when load() is called.
class TransferSource {
 public:
  static constexpr size_t kDefaultMaxPerWorkload = 1000;
  explicit TransferSource(const std::string& db_path, size_t max_per_workload = kDefaultMaxPerWorkload);
  TrainingData load(const Task& target) const;
  const std::string& path() const { return db_.path(); }

 private:
  RecordsDb db_;
  size_t max_per_workload_;
};

}  // namespace tessel::search
