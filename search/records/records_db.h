// The records database: every trial of every tuning run, in SQLite (schema and guarantees:
// docs/records.md).
//
// Opening for writing checks everything before anything is written: that the file is a Tessel
// records database of a schema this Tessel reads, that it can be written (a read-only file or
// folder is reported as read-only), and that it is intact (PRAGMA quick_check: a damaged file is
// refused with how to recover what is readable). A refused file is left byte-for-byte as it was.
// Only then is an older schema upgraded in place (version 3 keys records by workload key and
// target) and the file switched to WAL mode. A missing or empty file is created in one
// transaction, so two processes creating the same file both succeed.
//
// Each batch of trials is appended in one transaction as soon as it is measured, so killing the
// tuner at any moment loses at most the batch in flight, and readers (`tessel records`) never
// block the tuner. A run is claimed while it is tuned (claim_run), so the same run started twice
// at once is refused instead of recording every trial twice.
//
// Opening for reading never writes: a file of an older schema is upgraded in a private copy in
// memory, and a damaged file can still be read as far as it is readable (`records export`).
//
//   RecordsDb db = RecordsDb::open("runs.db");
//   RunClaim claim = db.claim_run(run);
//   db.append(batch);
//   std::vector<TrialRecord> done = db.run_trials(run);
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "search/records/sqlite.h"
#include "search/records/trial_record.h"

namespace tessel::search {

class RecordsDb;

// A run marked as being tuned by this process, until destroyed. The database must outlive it.
class RunClaim {
 public:
  RunClaim(RunClaim&& other) noexcept;
  RunClaim(const RunClaim&) = delete;
  RunClaim& operator=(const RunClaim&) = delete;
  ~RunClaim();

 private:
  friend class RecordsDb;
  RunClaim(sql::Connection* db, std::string run, std::string owner)
      : db_(db), run_(std::move(run)), owner_(std::move(owner)) {}
  sql::Connection* db_;
  std::string run_, owner_;
};

class RecordsDb {
 public:
  static constexpr const char* kApplicationId = "tessel-records";
  static constexpr int kSchemaVersion = 3;  // version-1 and -2 files are upgraded on open

  enum class Access { ReadWrite, ReadOnly };

  // ReadWrite creates the file if it does not exist (or is empty); otherwise checks it as above.
  // ReadOnly needs an existing file and never changes it. Throws UserError saying what is wrong.
  static RecordsDb open(const std::string& path, Access access = Access::ReadWrite);

  void append(const std::vector<TrialRecord>& records);  // one transaction

  // One run's trials (RunKey::same_run: the label does not matter), by trial number.
  std::vector<TrialRecord> run_trials(const RunKey& run) const;
  std::vector<TrialRecord> all() const;
  // Every trial in insertion order, one at a time, until the end or an unreadable row (whose
  // UserError propagates after the rows before it were seen): how a damaged file is recovered.
  void for_each(const std::function<void(const TrialRecord&)>& visit) const;
  // The fastest Ok trial of each task (workload key, target, space), ordered by workload label.
  std::vector<TrialRecord> best_per_task() const;

  // The candidates of one run's final selection (search/selection.h), in one transaction.
  void append_selection(const std::vector<SelectionRecord>& candidates);
  // Of each task that went through a final selection, the chosen candidate with the shortest
  // re-measured time over its runs, each run by its latest selection (one run again, as a resumed
  // tune-model does, replaces the run's earlier choice), ordered by workload label.
  std::vector<SelectionRecord> chosen_per_task() const;

  // The template default's candidate in `run`'s latest final selection; nullopt when the run has
  // none. Appended again with `chosen` set, it makes the default the run's choice (tune-model's
  // check in the model, compiler/model_check.h).
  std::optional<SelectionRecord> latest_default_candidate(const RunKey& run) const;

  // Marks `run` as being tuned by this process until the claim is destroyed. Throws UserError if
  // another live process tunes the same run in this database (a claim left by a process that died
  // is taken over).
  RunClaim claim_run(const RunKey& run);

  const std::string& path() const { return db_.path(); }
  bool read_only() const { return read_only_; }

 private:
  RecordsDb(sql::Connection db, bool read_only) : db_(std::move(db)), read_only_(read_only) {}
  std::vector<TrialRecord> query(const std::string& where, const std::vector<std::string>& params) const;
  sql::Connection db_;
  bool read_only_;
};

}  // namespace tessel::search
