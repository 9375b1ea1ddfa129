// The SQLite records database (search/records/records_db.h; schema in docs/records.md).
#include "search/records/records_db.h"

#include <filesystem>

#include "support/error.h"

namespace tessel::search {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE trials (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workload TEXT NOT NULL,
  space TEXT NOT NULL,
  strategy TEXT NOT NULL,
  seed INTEGER NOT NULL,
  trial INTEGER NOT NULL,
  config_index INTEGER NOT NULL,
  config TEXT NOT NULL,
  status TEXT NOT NULL,
  median_us REAL NOT NULL,
  min_us REAL NOT NULL,
  max_us REAL NOT NULL,
  spread_pct REAL NOT NULL,
  repeats INTEGER NOT NULL,
  gflops REAL NOT NULL,
  max_abs_err REAL NOT NULL,
  compile_s REAL NOT NULL,
  error TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX trials_by_task ON trials (workload, space, config_index);
)sql";

// Added in schema version 2; a version-1 file gets it on open (nothing else changed).
constexpr const char* kSelectionsSchema = R"sql(
CREATE TABLE selections (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workload TEXT NOT NULL,
  space TEXT NOT NULL,
  strategy TEXT NOT NULL,
  seed INTEGER NOT NULL,
  config_index INTEGER NOT NULL,
  config TEXT NOT NULL,
  origin TEXT NOT NULL,
  rounds INTEGER NOT NULL,
  median_us REAL NOT NULL,
  gflops REAL NOT NULL,
  chosen INTEGER NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
)sql";

constexpr const char* kSelectionColumns =
    "workload, space, strategy, seed, config_index, config, origin, rounds, median_us, gflops, chosen, created_at";

constexpr const char* kColumns =
    "workload, space, strategy, seed, trial, config_index, config, status, median_us, min_us, max_us, spread_pct, "
    "repeats, gflops, max_abs_err, compile_s, error, created_at";

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  user_error("'", path, "' is not a Tessel records database (", why,
             "); it was left untouched: pass another --db path, or move the file away");
}

// Reads the meta table without writing anything; refuses a foreign or newer file. Returns the
// file's schema version.
int check_ours(const sql::Connection& db) {
  std::string application, version;
  try {
    sql::Statement read(db, "SELECT key, value FROM meta WHERE key IN ('application_id', 'schema_version')");
    while (read.step()) (read.column_text(0) == "application_id" ? application : version) = read.column_text(1);
  } catch (const UserError& e) {
    refuse(db.path(), std::string("cannot read its meta table: ") + e.what());
  }
  if (application != RecordsDb::kApplicationId)
    refuse(db.path(), "its meta table names application '" + application + "'");
  if (version != "1" && version != std::to_string(RecordsDb::kSchemaVersion))
    user_error("records database '", db.path(), "' has schema version ", version, "; this Tessel reads versions 1 to ",
               RecordsDb::kSchemaVersion, ". Use the Tessel that wrote it, or another --db path");
  return std::stoi(version);
}

// Runs `write` in one write transaction: all of it lands, or (on an exception) none of it.
template <typename Write>
void in_transaction(sql::Connection& db, Write write) {
  db.exec("BEGIN IMMEDIATE");
  try {
    write();
  } catch (...) {
    db.exec("ROLLBACK");
    throw;
  }
  db.exec("COMMIT");
}

void create_schema(sql::Connection& db) {
  in_transaction(db, [&] {
    db.exec(kSchema);
    db.exec(kSelectionsSchema);
    sql::Statement meta(db, "INSERT INTO meta (key, value) VALUES (?, ?)");
    meta.bind(1, std::string("application_id")).bind(2, std::string(RecordsDb::kApplicationId)).run();
    meta.bind(1, std::string("schema_version")).bind(2, std::to_string(RecordsDb::kSchemaVersion)).run();
  });
}

// Version 1 → 2 adds the selections table; the trials are untouched.
void upgrade_from_version_1(sql::Connection& db) {
  in_transaction(db, [&] {
    db.exec(kSelectionsSchema);
    db.exec("UPDATE meta SET value = '2' WHERE key = 'schema_version'");
  });
}

TrialRecord read_row(const sql::Statement& row) {
  TrialRecord r;
  r.run = {row.column_text(0), row.column_text(1), row.column_text(2), row.column_int(3)};
  r.trial = row.column_int(4);
  r.config_index = static_cast<uint64_t>(row.column_int(5));
  r.config = nlohmann::json::parse(row.column_text(6), nullptr, false);
  r.result.status = parse_status(row.column_text(7));
  r.result.timing = {row.column_double(8), row.column_double(9), row.column_double(10), row.column_double(11),
                     static_cast<int>(row.column_int(12))};
  r.gflops = row.column_double(13);
  r.result.max_abs_err = row.column_double(14);
  r.result.compile_s = row.column_double(15);
  r.result.error = row.column_text(16);
  r.created_at = row.column_text(17);
  return r;
}

}  // namespace

RecordsDb RecordsDb::open(const std::string& path) {
  std::error_code error;
  bool fresh = !std::filesystem::exists(path, error) || std::filesystem::file_size(path, error) == 0;
  if (!fresh && !std::filesystem::is_regular_file(path, error)) refuse(path, "it is not a regular file");
  sql::Connection db(path, fresh);
  if (fresh) create_schema(db);
  else if (check_ours(db) == 1) upgrade_from_version_1(db);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");  // in WAL mode still safe against a killed process
  return RecordsDb(std::move(db));
}

void RecordsDb::append(const std::vector<TrialRecord>& records) {
  if (records.empty()) return;
  in_transaction(db_, [&] {
    sql::Statement insert(db_, std::string("INSERT INTO trials (") + kColumns +
                                   ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                   "COALESCE(NULLIF(?, ''), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))");
    for (const TrialRecord& r : records) {
      const TimingStats& t = r.result.timing;
      insert.bind(1, r.run.workload).bind(2, r.run.space).bind(3, r.run.strategy).bind(4, r.run.seed);
      insert.bind(5, r.trial).bind(6, static_cast<int64_t>(r.config_index)).bind(7, r.config.dump());
      insert.bind(8, std::string(status_name(r.result.status))).bind(9, t.median_us).bind(10, t.min_us);
      insert.bind(11, t.max_us).bind(12, t.spread_pct).bind(13, static_cast<int64_t>(t.repeats)).bind(14, r.gflops);
      insert.bind(15, r.result.max_abs_err).bind(16, r.result.compile_s).bind(17, r.result.error);
      insert.bind(18, r.created_at).run();
    }
  });
}

std::vector<TrialRecord> RecordsDb::query(const std::string& where, const std::vector<std::string>& params) const {
  sql::Statement select(db_, std::string("SELECT ") + kColumns + " FROM trials " + where);
  for (size_t i = 0; i < params.size(); ++i) select.bind(static_cast<int>(i + 1), params[i]);
  std::vector<TrialRecord> out;
  while (select.step()) out.push_back(read_row(select));
  return out;
}

std::vector<TrialRecord> RecordsDb::task_trials(const std::string& workload, const std::string& space) const {
  return query("WHERE workload = ? AND space = ? ORDER BY id", {workload, space});
}

std::vector<TrialRecord> RecordsDb::all() const { return query("ORDER BY id", {}); }

void RecordsDb::append_selection(const std::vector<SelectionRecord>& candidates) {
  if (candidates.empty()) return;
  in_transaction(db_, [&] {
    sql::Statement insert(db_, std::string("INSERT INTO selections (") + kSelectionColumns +
                                   ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))");
    for (const SelectionRecord& c : candidates) {
      insert.bind(1, c.run.workload).bind(2, c.run.space).bind(3, c.run.strategy).bind(4, c.run.seed);
      insert.bind(5, static_cast<int64_t>(c.config_index)).bind(6, c.config.dump()).bind(7, c.origin);
      insert.bind(8, static_cast<int64_t>(c.rounds)).bind(9, c.median_us).bind(10, c.gflops);
      insert.bind(11, static_cast<int64_t>(c.chosen)).run();
    }
  });
}

std::vector<SelectionRecord> RecordsDb::chosen_per_task() const {
  sql::Statement select(db_, std::string("SELECT ") + kSelectionColumns +
                                 ", MIN(median_us) FROM selections WHERE chosen = 1 AND median_us > 0 "
                                 "GROUP BY workload, space ORDER BY workload, space");
  std::vector<SelectionRecord> out;
  while (select.step()) {
    SelectionRecord c;
    c.run = {select.column_text(0), select.column_text(1), select.column_text(2), select.column_int(3)};
    c.config_index = static_cast<uint64_t>(select.column_int(4));
    c.config = nlohmann::json::parse(select.column_text(5), nullptr, false);
    c.origin = select.column_text(6);
    c.rounds = static_cast<int>(select.column_int(7));
    c.median_us = select.column_double(8);
    c.gflops = select.column_double(9);
    c.chosen = select.column_int(10) != 0;
    c.created_at = select.column_text(11);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<TrialRecord> RecordsDb::best_per_task() const {
  // SQLite returns the bare columns of the row holding MIN() in an aggregate query.
  sql::Statement select(db_, std::string("SELECT ") + kColumns + ", MIN(median_us) FROM trials WHERE status = 'ok' "
                                 "GROUP BY workload, space ORDER BY workload, space");
  std::vector<TrialRecord> out;
  while (select.step()) out.push_back(read_row(select));
  return out;
}

}  // namespace tessel::search
