// The SQLite records database (search/records/records_db.h; schema in docs/records.md): opening with
// every check before the first write, appending and querying.
#include "search/records/records_db.h"

#include <thread>
#include <chrono>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "search/records/records_schema.h"
#include "support/error.h"

namespace tessel::search {

namespace {

namespace fs = std::filesystem;
using records_schema::refuse_damaged;
using records_schema::refuse_foreign;

constexpr const char* kColumns =
    "workload, workload_key, target, space, strategy, seed, trial, batch, config_index, candidate, config, status, "
    "median_us, min_us, max_us, spread_pct, repeats, gflops, max_abs_err, compile_s, error, created_at";

constexpr const char* kSelectionColumns =
    "workload, workload_key, target, space, strategy, seed, config_index, candidate, config, origin, rounds, "
    "median_us, gflops, chosen, created_at";

// Why `path` cannot be written ("" if it can). SQLite keeps its journal (WAL) files beside the
// database, so the folder must be writable too.
std::string why_read_only(const std::string& path, bool exists) {
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (exists && access(path.c_str(), W_OK) != 0) return "the file is not writable";
  if (access(folder.c_str(), W_OK) != 0)
    return "its folder '" + folder.string() + "' is not writable, and SQLite keeps its journal beside the file";
  return "";
}

void check_intact(const sql::Connection& db) {
  try {
    sql::Statement check(db, "PRAGMA quick_check");
    std::string first = check.step() ? check.column_text(0) : "no answer";
    if (first != "ok") refuse_damaged(db.path(), "PRAGMA quick_check: " + first);
  } catch (const sql::Error& e) {
    if (e.code == SQLITE_CORRUPT || e.code == SQLITE_NOTADB) refuse_damaged(db.path(), e.what());
    throw;
  }
}

// A candidate as stored; one that cannot be read (written by a faulty import before schema 3)
// becomes an empty decision list, which no space contains, so every use of it is refused.
Candidate read_candidate(const std::string& text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  try {
    return Candidate::from_json(json);
  } catch (const UserError&) {
    return Candidate::from_decisions({});
  }
}

RunKey read_run(const sql::Statement& row) {
  return {row.column_text(0), row.column_text(1), row.column_text(2),
          row.column_text(3), row.column_text(4), row.column_int(5)};
}

void bind_run(sql::Statement& insert, const RunKey& run) {
  insert.bind(1, run.workload).bind(2, run.workload_key).bind(3, run.target).bind(4, run.space);
  insert.bind(5, run.strategy).bind(6, run.seed);
}

TrialRecord read_trial(const sql::Statement& row) {
  TrialRecord r;
  r.run = read_run(row);
  r.trial = row.column_int(6);
  r.batch = row.column_int(7);
  r.candidate = read_candidate(row.column_text(9));
  r.config = nlohmann::json::parse(row.column_text(10), nullptr, false);
  r.result.status = parse_status(row.column_text(11));
  r.result.timing = {row.column_double(12), row.column_double(13), row.column_double(14), row.column_double(15),
                     static_cast<int>(row.column_int(16))};
  r.gflops = row.column_double(17);
  r.result.max_abs_err = row.column_double(18);
  r.result.compile_s = row.column_double(19);
  r.result.error = row.column_text(20);
  r.created_at = row.column_text(21);
  return r;
}

SelectionRecord read_selection(const sql::Statement& row) {
  SelectionRecord c;
  c.run = read_run(row);
  c.candidate = read_candidate(row.column_text(7));
  c.config = nlohmann::json::parse(row.column_text(8), nullptr, false);
  c.origin = row.column_text(9);
  c.rounds = static_cast<int>(row.column_int(10));
  c.median_us = row.column_double(11);
  c.gflops = row.column_double(12);
  c.chosen = row.column_int(13) != 0;
  c.created_at = row.column_text(14);
  return c;
}

// The first read: a WAL-mode file in a folder nobody may write cannot get its shared-memory file,
// so it is read as immutable (nobody can be writing it there).
int read_version_for_reading(sql::Connection& db) {
  try {
    return records_schema::read_version(db);
  } catch (const sql::Error& e) {
    if (e.code != SQLITE_CANTOPEN && e.code != SQLITE_READONLY) throw;
  }
  db = sql::Connection(db.path(), sql::OpenMode::Immutable);
  return records_schema::read_version(db);
}

// WAL mode. Switching to it needs the file to itself, and SQLite answers "database is locked"
// at once rather than waiting when a sibling process is opening the same new file, so wait here.
void use_write_ahead_log(sql::Connection& db) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (int attempt = 0;; ++attempt) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (const sql::Error& e) {
      bool busy = e.code == SQLITE_BUSY || e.code == SQLITE_LOCKED;
      if (!busy || std::chrono::steady_clock::now() > deadline) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(5 + 5 * attempt, 100)));
  }
}

}  // namespace

RecordsDb RecordsDb::open(const std::string& path, Access access) {
  std::error_code error;
  bool exists = fs::exists(path, error);
  if (exists && !fs::is_regular_file(path, error)) refuse_foreign(path, "it is not a regular file");
  bool empty = !exists || fs::file_size(path, error) == 0;
  if (access == Access::ReadOnly) {
    if (!exists) user_error("records database '", path, "' does not exist");
    sql::Connection db(path, sql::OpenMode::ReadOnly);
    if (read_version_for_reading(db) < kSchemaVersion) {  // an older (or empty) file: read a private copy
      db = sql::Connection::in_memory_copy(db);
      records_schema::prepare(db);
    }
    return RecordsDb(std::move(db), true);
  }
  if (std::string why = why_read_only(path, exists); !why.empty()) {
    if (!empty) {  // ours at all?
      sql::Connection probe(path, sql::OpenMode::ReadOnly);
      read_version_for_reading(probe);
    }
    user_error("records database '", path, "' is read-only (", why, "); tuning and importing write to it: ",
               "make it writable, or pass another --db. Reading it works as it is (tessel records list, best, ",
               "chosen, export; bench --tuned)");
  }
  sql::Connection db(path, empty ? sql::OpenMode::Create : sql::OpenMode::ReadWrite);
  if (!empty) {
    records_schema::read_version(db);
    check_intact(db);
  }
  records_schema::prepare(db);
  use_write_ahead_log(db);
  db.exec("PRAGMA synchronous = NORMAL");  // in WAL mode still safe against a killed process
  return RecordsDb(std::move(db), false);
}

void RecordsDb::append(const std::vector<TrialRecord>& records) {
  if (records.empty()) return;
  records_schema::in_transaction(db_, [&] {
    sql::Statement insert(db_, std::string("INSERT INTO trials (") + kColumns +
                                   ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                   "COALESCE(NULLIF(?, ''), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))");
    for (const TrialRecord& r : records) {
      const TimingStats& t = r.result.timing;
      bind_run(insert, r.run);
      insert.bind(7, r.trial).bind(8, r.batch).bind(9, r.config_index()).bind(10, r.candidate.to_json().dump());
      insert.bind(11, r.config.dump()).bind(12, std::string(status_name(r.result.status))).bind(13, t.median_us);
      insert.bind(14, t.min_us).bind(15, t.max_us).bind(16, t.spread_pct).bind(17, static_cast<int64_t>(t.repeats));
      insert.bind(18, r.gflops).bind(19, r.result.max_abs_err).bind(20, r.result.compile_s).bind(21, r.result.error);
      insert.bind(22, r.created_at).run();
    }
  });
}

std::vector<TrialRecord> RecordsDb::query(const std::string& where, const std::vector<std::string>& params) const {
  sql::Statement select(db_, std::string("SELECT ") + kColumns + " FROM trials " + where);
  for (size_t i = 0; i < params.size(); ++i) select.bind(static_cast<int>(i + 1), params[i]);
  std::vector<TrialRecord> out;
  while (select.step()) out.push_back(read_trial(select));
  return out;
}

namespace {

// The rows of one run (RunKey::same_run), in trials or selections: the condition and its parameters.
constexpr const char* kOfRun = "workload_key = ? AND target = ? AND space = ? AND strategy = ? AND seed = ?";
std::vector<std::string> run_parameters(const RunKey& run) {
  return {run.workload_key, run.target, run.space, run.strategy, std::to_string(run.seed)};
}

}  // namespace

std::vector<TrialRecord> RecordsDb::run_trials(const RunKey& run) const {
  return query(std::string("WHERE ") + kOfRun + " ORDER BY trial, id", run_parameters(run));
}

std::vector<TrialRecord> RecordsDb::all() const { return query("ORDER BY id", {}); }

void RecordsDb::for_each(const std::function<void(const TrialRecord&)>& visit) const {
  sql::Statement select(db_, std::string("SELECT ") + kColumns + " FROM trials ORDER BY id");
  while (select.step()) visit(read_trial(select));
}

std::vector<TrialRecord> RecordsDb::best_per_task() const {
  // SQLite returns the bare columns of the row holding MIN() in an aggregate query.
  sql::Statement select(db_, std::string("SELECT ") + kColumns + ", MIN(median_us) FROM trials WHERE status = 'ok' "
                                 "GROUP BY workload_key, target, space ORDER BY workload, target, space");
  std::vector<TrialRecord> out;
  while (select.step()) out.push_back(read_trial(select));
  return out;
}

void RecordsDb::append_selection(const std::vector<SelectionRecord>& candidates) {
  if (candidates.empty()) return;
  records_schema::in_transaction(db_, [&] {
    sql::Statement insert(db_, std::string("INSERT INTO selections (") + kSelectionColumns +
                                   ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                   "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))");
    for (const SelectionRecord& c : candidates) {
      bind_run(insert, c.run);
      insert.bind(7, c.config_index()).bind(8, c.candidate.to_json().dump()).bind(9, c.config.dump());
      insert.bind(10, c.origin).bind(11, static_cast<int64_t>(c.rounds)).bind(12, c.median_us).bind(13, c.gflops);
      insert.bind(14, static_cast<int64_t>(c.chosen)).run();
    }
  });
}

std::optional<SelectionRecord> RecordsDb::latest_default_candidate(const RunKey& run) const {
  sql::Statement select(db_, std::string("SELECT ") + kSelectionColumns + " FROM selections WHERE " + kOfRun +
                                 " AND origin = 'default' ORDER BY id DESC LIMIT 1");
  std::vector<std::string> params = run_parameters(run);
  for (size_t i = 0; i < params.size(); ++i) select.bind(static_cast<int>(i + 1), params[i]);
  if (!select.step()) return std::nullopt;
  return read_selection(select);
}

std::vector<SelectionRecord> RecordsDb::chosen_per_task() const {
  // Each run's latest choice (a selection run again replaces the run's earlier one), then the
  // fastest of those per task.
  sql::Statement select(db_, std::string("SELECT ") + kSelectionColumns +
                                 ", MIN(median_us) FROM selections WHERE id IN (SELECT MAX(id) FROM selections "
                                 "WHERE chosen = 1 AND median_us > 0 GROUP BY workload_key, target, space, strategy, "
                                 "seed) GROUP BY workload_key, target, space ORDER BY workload, target, space");
  std::vector<SelectionRecord> out;
  while (select.step()) out.push_back(read_selection(select));
  return out;
}

}  // namespace tessel::search
