// RAII wrappers over the SQLite C API (search/records/sqlite.h).
#include "search/records/sqlite.h"

#include <sqlite3.h>

#include "support/error.h"

namespace tessel::search::sql {

Connection::Connection(const std::string& path, bool create) : path_(path) {
  int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    user_error("cannot open records database '", path, "': ", message);
  }
  sqlite3_busy_timeout(db_, 5000);  // another tuner appending to the same file waits its turn
}

Connection::~Connection() { sqlite3_close(db_); }

Connection::Connection(Connection&& other) noexcept : db_(other.db_), path_(std::move(other.path_)) {
  other.db_ = nullptr;
}

void Connection::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    user_error("records database '", path_, "': ", text);
  }
}

void Connection::fail(const std::string& what) const {
  user_error("records database '", path_, "': ", what, ": ", sqlite3_errmsg(db_));
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
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  return text ? reinterpret_cast<const char*>(text) : "";
}

}  // namespace tessel::search::sql
