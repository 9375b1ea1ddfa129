// RAII wrappers over the SQLite C API (search/records/sqlite.h).
#include "search/records/sqlite.h"

#include <sqlite3.h>

#include <cstdio>

#include "support/error.h"

namespace tessel::search::sql {

namespace {

int flags_of(OpenMode mode) {
  switch (mode) {
    case OpenMode::ReadOnly: return SQLITE_OPEN_READONLY;
    case OpenMode::ReadWrite: return SQLITE_OPEN_READWRITE;
    case OpenMode::Create: return SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    case OpenMode::Immutable: return SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
  }
  return SQLITE_OPEN_READONLY;
}

// "file:<path>?immutable=1", with the characters a URI path cannot hold escaped.
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
      uri += escaped;
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

[[noreturn]] void throw_error(sqlite3* db, const std::string& message) {
  throw Error(message, db ? sqlite3_errcode(db) & 0xff : SQLITE_NOMEM);
}

}  // namespace

Connection::Connection(const std::string& path, OpenMode mode) : path_(path) {
  std::string name = mode == OpenMode::Immutable ? immutable_uri(path) : path;
  if (sqlite3_open_v2(name.c_str(), &db_, flags_of(mode), nullptr) != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    int code = db_ ? sqlite3_errcode(db_) & 0xff : SQLITE_NOMEM;
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error("cannot open records database '" + path + "': " + message, code);
  }
  sqlite3_busy_timeout(db_, 5000);  // another tuner appending to the same file waits its turn
}

Connection Connection::in_memory_copy(const Connection& source) {
  Connection copy;
  copy.path_ = source.path_;
  if (sqlite3_open(":memory:", &copy.db_) != SQLITE_OK) throw_error(copy.db_, "cannot open an in-memory database");
  sqlite3_backup* backup = sqlite3_backup_init(copy.db_, "main", source.db_, "main");
  if (!backup) copy.fail("cannot copy into memory");
  sqlite3_backup_step(backup, -1);
  if (sqlite3_backup_finish(backup) != SQLITE_OK) copy.fail("cannot copy into memory");
  return copy;
}

Connection::~Connection() { sqlite3_close(db_); }

Connection::Connection(Connection&& other) noexcept : db_(other.db_), path_(std::move(other.path_)) {
  other.db_ = nullptr;
}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    db_ = other.db_;
    path_ = std::move(other.path_);
    other.db_ = nullptr;
  }
  return *this;
}

void Connection::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    throw_error(db_, "records database '" + path_ + "': " + text);
  }
}

void Connection::fail(const std::string& what) const {
  throw_error(db_, "records database '" + path_ + "': " + what + ": " + sqlite3_errmsg(db_));
}

Statement::Statement(const Connection& db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) db.fail("cannot prepare a query");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_.fail("bind");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_.fail("bind");
  return *this;
}

Statement& Statement::bind(int index, const std::string& value) {
  if (sqlite3_bind_text(stmt_, index, value.c_str(), static_cast<int>(value.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    db_.fail("bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail("query failed");
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::column_int(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::column_double(int column) const { return sqlite3_column_double(stmt_, column); }
std::string Statement::column_text(int column) const {
  // By length, not up to the first NUL: a stored string may hold one (JSON's "\u0000").
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (!text) return "";
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

}  // namespace tessel::search::sql
