// The schema of the records database and its upgrades (docs/records.md): recognizing a file as
// ours, creating the tables, and upgrading a version-1 or -2 file to version 3. Used by
// records_db.cpp, which decides when each may run (never before a file is accepted).
//
// A new file is made by creating the version-1 tables and running every upgrade, in one
// transaction, so a new file and an upgraded one have exactly the same schema.
#pragma once
#include <string>

#include "search/records/sqlite.h"

namespace tessel::search::records_schema {

// The file's schema version, read without writing anything; 0 when it has no tables at all (a
// file just created). Throws UserError if it is not a Tessel records database or has a schema
// newer than this Tessel reads; a damaged file is reported as damaged, with how to recover. A file
// SQLite cannot read through this connection for want of write access (a WAL-mode file whose
// shared-memory file cannot be made) throws its sql::Error (SQLITE_READONLY, SQLITE_CANTOPEN).
int read_version(const sql::Connection& db);

// Brings the file to the current version in one write transaction: creates the schema if it has
// none, upgrades an older one. Reads the version again inside the transaction, so a process that
// lost a race against another creating or upgrading the same file finds the work done.
void prepare(sql::Connection& db);

// Upgrades a private copy (an in-memory copy of an older file opened for reading).
void upgrade_copy(sql::Connection& copy);

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

// The message for a damaged file: what is wrong and how to recover what is readable.
[[noreturn]] void refuse_damaged(const std::string& path, const std::string& detail);
// The message for a file that is not a records database at all.
[[noreturn]] void refuse_foreign(const std::string& path, const std::string& why);

}  // namespace tessel::search::records_schema
