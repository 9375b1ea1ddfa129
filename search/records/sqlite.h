// A thin RAII layer over the SQLite C API for the records database: a connection and prepared
// statements with typed binding, stepping and column reads. Failures throw UserError carrying
// SQLite's message and the database path (a locked, read-only or damaged file is the user's to fix).
#pragma once
#include <cstdint>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace tessel::search::sql {

class Connection {
 public:
  // Opens `path`; `create` allows creating a missing file.
  Connection(const std::string& path, bool create);
  ~Connection();
  Connection(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void exec(const std::string& sql);  // statements without results
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what) const;  // throws with SQLite's last message

 private:
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
