// Schema creation, recognition and upgrades of the records database (search/records/records_schema.h).
#include "search/records/records_schema.h"

#include <sqlite3.h>

#include <set>
#include <string>

#include "search/records/records_db.h"
#include "search/spaces/workload_spec.h"

namespace tessel::search::records_schema {

namespace {

// Version 1: the trials.
constexpr const char* kVersion1 = R"sql(
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
INSERT INTO meta (key, value) VALUES ('application_id', 'tessel-records'), ('schema_version', '1');
)sql";

// Version 2: the final selections.
constexpr const char* kVersion2 = R"sql(
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
UPDATE meta SET value = '2' WHERE key = 'schema_version';
)sql";

// Version 3: records keyed by workload key and target, candidates that need not be indices, batch
// numbers (so a resumed run can replay its batches), and the runs being tuned. Rows written before
// keep their label as the only name of their workload until it is keyed below, and their target
// is unknown: they were tuned on a machine whose target nobody recorded.
constexpr const char* kVersion3 = R"sql(
ALTER TABLE trials ADD COLUMN workload_key TEXT NOT NULL DEFAULT '';
ALTER TABLE trials ADD COLUMN target TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE trials ADD COLUMN candidate TEXT NOT NULL DEFAULT '';
ALTER TABLE trials ADD COLUMN batch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE selections ADD COLUMN workload_key TEXT NOT NULL DEFAULT '';
ALTER TABLE selections ADD COLUMN target TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE selections ADD COLUMN candidate TEXT NOT NULL DEFAULT '';
UPDATE trials SET candidate = CAST(config_index AS TEXT);
UPDATE selections SET candidate = CAST(config_index AS TEXT);
CREATE INDEX trials_by_run ON trials (workload_key, target, space, strategy, seed, trial);
CREATE TABLE runs_in_progress (
  run TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
UPDATE meta SET value = '3' WHERE key = 'schema_version';
)sql";

// The key of a workload label of an older file; labels this Tessel cannot parse (an operator of a
// plugin not loaded) are keyed by their name, so they stay apart and are never matched by key.
std::string key_of_label(const std::string& label) {
  try {
    return parse_workload(label).key();
  } catch (const UserError&) {
    return "name:" + label;
  }
}

void key_workloads(sql::Connection& db) {
  std::set<std::string> labels;
  sql::Statement read(db, "SELECT workload FROM trials UNION SELECT workload FROM selections");
  while (read.step()) labels.insert(read.column_text(0));
  for (const char* table : {"trials", "selections"}) {
    sql::Statement update(db, std::string("UPDATE ") + table + " SET workload_key = ? WHERE workload = ?");
    for (const std::string& label : labels) update.bind(1, key_of_label(label)).bind(2, label).run();
  }
}

// Upgrades from `version` (1 or 2) to the current one, inside the caller's transaction.
void upgrade_from(sql::Connection& db, int version) {
  if (version < 2) db.exec(kVersion2);
  db.exec(kVersion3);
  key_workloads(db);
}

int parse_version(const sql::Connection& db, const std::string& version) {
  for (int v = 1; v <= RecordsDb::kSchemaVersion; ++v)
    if (version == std::to_string(v)) return v;
  if (!version.empty() && version.find_first_not_of("0123456789") == std::string::npos)
    user_error("records database '", db.path(), "' has schema version ", version, "; this Tessel reads versions 1 to ",
               RecordsDb::kSchemaVersion, ". Use the Tessel that wrote it, or another --db path");
  refuse_foreign(db.path(), "its meta table holds schema version '" + version + "'");
}

}  // namespace

void refuse_foreign(const std::string& path, const std::string& why) {
  user_error("'", path, "' is not a Tessel records database (", why,
             "); it was left untouched: pass another --db path, or move the file away");
}

void refuse_damaged(const std::string& path, const std::string& detail) {
  user_error("records database '", path, "' is damaged (", detail,
             "); it was not written to. Recover what is readable into a new file: tessel records export --db '",
             path, "' --out saved.jsonl, then tessel records import --db NEW.db saved.jsonl");
}

int read_version(const sql::Connection& db) {
  std::string application, version;
  try {
    sql::Statement tables(db, "SELECT count(*) FROM sqlite_master");
    tables.step();
    if (tables.column_int(0) == 0) return 0;
    sql::Statement read(db, "SELECT key, value FROM meta WHERE key IN ('application_id', 'schema_version')");
    while (read.step()) (read.column_text(0) == "application_id" ? application : version) = read.column_text(1);
  } catch (const sql::Error& e) {
    if (e.code == SQLITE_CORRUPT) refuse_damaged(db.path(), e.what());
    if (e.code == SQLITE_NOTADB) refuse_foreign(db.path(), "it is not an SQLite database");
    if (e.code == SQLITE_READONLY || e.code == SQLITE_CANTOPEN) throw;  // the caller knows how it opened the file
    refuse_foreign(db.path(), std::string("cannot read its meta table: ") + e.what());
  }
  if (application != RecordsDb::kApplicationId)
    refuse_foreign(db.path(), "its meta table names application '" + application + "'");
  return parse_version(db, version);
}

void prepare(sql::Connection& db) {
  in_transaction(db, [&] {
    int version = read_version(db);
    if (version == 0) {
      db.exec(kVersion1);
      version = 1;
    }
    if (version < RecordsDb::kSchemaVersion) upgrade_from(db, version);
  });
}

void upgrade_copy(sql::Connection& copy) {
  int version = read_version(copy);
  if (version > 0 && version < RecordsDb::kSchemaVersion) in_transaction(copy, [&] { upgrade_from(copy, version); });
}

}  // namespace tessel::search::records_schema
