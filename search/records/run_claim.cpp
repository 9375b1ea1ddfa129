// Claims on runs being tuned (search/records/records_db.h): a row per run in runs_in_progress,
// naming the process that tunes it. A claim whose process is gone (killed, even by SIGKILL) is
// stale and taken over; a process is recognized by boot, pid and start time, so a reused pid
// does not keep a dead claim alive.
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>

#include "search/records/records_db.h"
#include "search/records/records_schema.h"

namespace tessel::search {

namespace {

struct Owner {
  std::string host, boot;
  long pid = 0;
  std::string start;  // clock ticks after boot, /proc/<pid>/stat field 22
  long claim = 0;     // tells apart two claims of one process

  std::string str() const {
    return host + " " + boot + " " + std::to_string(pid) + " " + start + " " + std::to_string(claim);
  }
  static Owner parse(const std::string& text) {
    Owner o;
    std::istringstream in(text);
    in >> o.host >> o.boot >> o.pid >> o.start >> o.claim;
    return o;
  }
};

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The start time of process `pid`, "" if there is no such process.
std::string start_time(long pid) {
  std::string stat = first_line("/proc/" + std::to_string(pid) + "/stat");
  size_t end_of_name = stat.rfind(')');
  if (end_of_name == std::string::npos) return "";
  std::istringstream fields(stat.substr(end_of_name + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
  }
  return field;
}

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

Owner this_process() {
  static std::atomic<long> claims{0};
  Owner o;
  o.host = host_name();
  o.boot = first_line("/proc/sys/kernel/random/boot_id");
  o.pid = static_cast<long>(getpid());
  o.start = start_time(o.pid);
  o.claim = ++claims;
  return o;
}

// Whether the claiming process may still run. One on another machine (a shared file system) or
// from before a reboot cannot be checked here: the first is assumed alive, the second is not.
bool alive(const Owner& o, const Owner& self) {
  if (o.host != self.host) return true;
  if (o.boot != self.boot) return false;
  return !o.start.empty() && start_time(o.pid) == o.start;
}

std::string run_text(const RunKey& run) {
  return run.workload_key + "|" + run.target + "|" + run.space + "|" + run.strategy + "|" + std::to_string(run.seed);
}

}  // namespace

RunClaim RecordsDb::claim_run(const RunKey& run) {
  TESSEL_CHECK(!read_only_, "claim_run on a database opened for reading");
  std::string text = run_text(run);
  Owner self = this_process();
  records_schema::in_transaction(db_, [&] {
    sql::Statement read(db_, "SELECT owner, started_at FROM runs_in_progress WHERE run = ?");
    read.bind(1, text);
    if (read.step()) {
      Owner other = Owner::parse(read.column_text(0));
      if (alive(other, self))
        user_error("the run ", run.describe(), " is being tuned by another process (pid ", other.pid, " on ",
                   other.host, ", since ", read.column_text(1), ") in '", path(),
                   "'; wait for it to finish, or tune another run (another --seed or --db)");
    }
    sql::Statement claim(db_, "INSERT OR REPLACE INTO runs_in_progress (run, owner) VALUES (?, ?)");
    claim.bind(1, text).bind(2, self.str()).run();
  });
  return RunClaim(&db_, text, self.str());
}

RunClaim::RunClaim(RunClaim&& other) noexcept
    : db_(other.db_), run_(std::move(other.run_)), owner_(std::move(other.owner_)) {
  other.db_ = nullptr;
}

RunClaim::~RunClaim() {
  if (!db_) return;
  try {
    sql::Statement release(*db_, "DELETE FROM runs_in_progress WHERE run = ? AND owner = ?");
    release.bind(1, run_).bind(2, owner_).run();
  } catch (const UserError&) {
    // A claim that cannot be released (the disk filled up) is stale once this process ends.
  }
}

}  // namespace tessel::search
