// The records database: every trial of every tuning run, in SQLite (schema: docs/records.md).
//
// The file runs in WAL mode and each batch of trials is appended in one transaction as soon as it
// is measured, so killing the tuner at any moment loses at most the batch in flight, and readers
// (`tessel records`) never block the tuner. A file that is not a Tessel records database (not
// SQLite at all, or SQLite without Tessel's meta table, or a newer schema) is refused with a
// message and never written to.
//
//   RecordsDb db = RecordsDb::open("runs.db");
//   db.append(batch);
//   std::vector<TrialRecord> done = db.task_trials("C6", "template");
#pragma once
#include <string>
#include <vector>

#include "search/records/sqlite.h"
#include "search/records/trial_record.h"

namespace tessel::search {

class RecordsDb {
 public:
  static constexpr const char* kApplicationId = "tessel-records";
  static constexpr int kSchemaVersion = 2;  // version-1 files are upgraded on open

  // Creates the file if it does not exist (or is empty); otherwise checks it is ours.
  static RecordsDb open(const std::string& path);

  void append(const std::vector<TrialRecord>& records);  // one transaction

  // Trials of one task (workload and space), any run, in insertion order.
  std::vector<TrialRecord> task_trials(const std::string& workload, const std::string& space) const;
  std::vector<TrialRecord> all() const;
  // The fastest Ok trial of each (workload, space), ordered by workload.
  std::vector<TrialRecord> best_per_task() const;

  // The candidates of one run's final selection (search/selection.h), in one transaction.
  void append_selection(const std::vector<SelectionRecord>& candidates);
  // Of each (workload, space) that went through a final selection, the chosen candidate with the
  // shortest re-measured time (over all its runs), ordered by workload.
  std::vector<SelectionRecord> chosen_per_task() const;

  const std::string& path() const { return db_.path(); }

 private:
  explicit RecordsDb(sql::Connection db) : db_(std::move(db)) {}
  std::vector<TrialRecord> query(const std::string& where, const std::vector<std::string>& params) const;
  sql::Connection db_;
};

}  // namespace tessel::search
