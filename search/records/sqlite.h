// A thin RAII layer over the SQLite C API for the records database: a connection and prepared
// statements with typed binding, stepping and column reads. Failures throw sql::Error (a
// UserError) carrying SQLite's message, its primary result code and the database path (a locked,
// read-only or damaged file is the user's to fix).
#pragma once
#include <cstdint>
#include <string>

#include "support/error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tessel::search::sql {

struct Error : UserError {
  Error(const std::string& message, int code) : UserError(message), code(code) {}
  int code;  // SQLite's primary result code (SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_READONLY, ...)
};

// Create: read-write, creating a missing file. Immutable: read-only, promising SQLite that nobody
// writes the file meanwhile, so it needs no lock or journal files (a file in a read-only folder).
enum class OpenMode { ReadOnly, ReadWrite, Create, Immutable };

class Connection {
 public:
  Connection(const std::string& path, OpenMode mode);
  // Opens `path` read-write; `create` allows creating a missing file.
  Connection(const std::string& path, bool create) : Connection(path, create ? OpenMode::Create : OpenMode::ReadWrite) {}
  // A private in-memory database holding a copy of `source` (for reading an old file without
  // upgrading it in place); its path() is the source's.
  static Connection in_memory_copy(const Connection& source);
  ~Connection();
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void exec(const std::string& sql);  // statements without results
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what) const;  // throws with SQLite's last message

 private:
  Connection() = default;
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Statement {
 public:
  Statement(const Connection& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, int64_t value);  // indices start at 1, as in SQLite
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  bool step();   // true while a row is available
  void run();    // steps to completion, then resets for the next binding
  void reset();

  int64_t column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;

 private:
  const Connection& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace tessel::search::sql
