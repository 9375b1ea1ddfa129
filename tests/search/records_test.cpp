// The records database: append/read round trips, JSON export/import, best per task, and refusal
// of files that are not Tessel records databases (which must stay byte-for-byte untouched).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "search/records/records_db.h"
#include "search/records/sqlite.h"
#include "search/spaces/workload_spec.h"
#include "support/error.h"
#include "tests/search/search_test_util.h"

using namespace tessel;
using namespace tessel::search;

namespace {

TrialRecord make_record(const std::string& workload, int64_t trial, TrialStatus status, double median_us) {
  TrialRecord r;
  r.run = {workload, parse_workload(workload).key(), "llvm_cpu -isa=avx2", "template", "random", 3};
  r.trial = trial;
  r.batch = (trial + 1) / 2;
  r.candidate = Candidate::from_index(100 + trial);
  r.config = {{"tile", {2, trial}}, {"unroll", "none"}};
  r.result.status = status;
  if (status == TrialStatus::Ok) r.result.timing = {median_us, median_us * 0.9, median_us * 1.2, 30.0, 5};
  else r.result.error = "the kernel was killed by signal SIGSEGV";
  r.result.compile_s = 0.25;
  r.gflops = status == TrialStatus::Ok ? 1000.0 / median_us : 0;
  return r;
}

std::string file_contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void check_same(const TrialRecord& a, const TrialRecord& b) {
  CHECK(a.to_json().dump() == b.to_json().dump());
}

}  // namespace

TEST_CASE("trials appended to the database read back unchanged", "[search][records]") {
  test::ScratchDir dir;
  std::vector<TrialRecord> written = {make_record("C6", 1, TrialStatus::Ok, 50), make_record("C6", 2, TrialStatus::Crash, 0),
                                      make_record("gemm:64", 1, TrialStatus::Ok, 7)};
  {
    RecordsDb db = RecordsDb::open(dir.file("runs.db"));
    db.append(written);
  }
  RecordsDb db = RecordsDb::open(dir.file("runs.db"));  // reopening an existing database works
  RunKey c6_run = written[0].run;
  c6_run.workload = "conv2d:1,128,28,28,128,3,1,1";  // the label does not matter: the key does
  std::vector<TrialRecord> c6 = db.run_trials(c6_run);
  REQUIRE(c6.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK_FALSE(c6[i].created_at.empty());
    written[i].created_at = c6[i].created_at;
    check_same(c6[i], written[i]);
  }
  RunKey other = c6_run;
  other.space = "other_space";
  CHECK(db.run_trials(other).empty());
  other = c6_run;
  other.target = "llvm_cpu -isa=avx512";
  CHECK(db.run_trials(other).empty());
  CHECK(db.all().size() == 3);
  std::vector<TrialRecord> best = db.best_per_task();
  REQUIRE(best.size() == 2);
  CHECK(best[0].run.workload == "C6");
  CHECK(best[0].result.timing.median_us == 50);
}

TEST_CASE("the best trial per task is the fastest correct one", "[search][records]") {
  test::ScratchDir dir;
  RecordsDb db = RecordsDb::open(dir.file("runs.db"));
  db.append({make_record("C6", 1, TrialStatus::Ok, 50), make_record("C6", 2, TrialStatus::Ok, 20),
             make_record("C6", 3, TrialStatus::Timeout, 0), make_record("C6", 4, TrialStatus::Ok, 30)});
  std::vector<TrialRecord> best = db.best_per_task();
  REQUIRE(best.size() == 1);
  CHECK(best[0].trial == 2);
}

TEST_CASE("records survive export to JSON lines and import", "[search][records]") {
  TrialRecord r = make_record("D3", 4, TrialStatus::Ok, 12.5);
  r.created_at = "2024-01-01T00:00:00.000Z";
  TrialRecord back = TrialRecord::from_json(nlohmann::json::parse(r.to_json().dump()));
  check_same(back, r);
  test::ScratchDir dir;
  RecordsDb db = RecordsDb::open(dir.file("imported.db"));
  db.append({back});
  check_same(db.all().at(0), r);  // the creation time is kept, not replaced
  nlohmann::json broken = r.to_json();
  broken.erase("status");
  CHECK_THROWS_WITH(TrialRecord::from_json(broken), Catch::Contains("\"status\""));
  nlohmann::json too_many = r.to_json();
  too_many["repeats"] = (int64_t(1) << 32) + 5;
  CHECK_THROWS_WITH(TrialRecord::from_json(too_many), Catch::Contains("\"repeats\" must be a count"));
}

TEST_CASE("a file that is not a records database is refused and left untouched", "[search][records]") {
  test::ScratchDir dir;
  std::string text = dir.file("notes.txt");
  std::ofstream(text) << "these are my notes, not a database\n";
  std::string before = file_contents(text);
  CHECK_THROWS_WITH(RecordsDb::open(text), Catch::Contains("not a Tessel records database"));
  CHECK(file_contents(text) == before);

  std::string foreign = dir.file("foreign.db");
  {
    sql::Connection other(foreign, true);
    other.exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT)");
    other.exec("INSERT INTO photos (path) VALUES ('cat.jpg')");
  }
  std::string foreign_before = file_contents(foreign);
  CHECK_THROWS_WITH(RecordsDb::open(foreign), Catch::Contains("not a Tessel records database"));
  CHECK(file_contents(foreign) == foreign_before);

  std::string other_app = dir.file("other_app.db");
  {
    sql::Connection other(other_app, true);
    other.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    other.exec("INSERT INTO meta VALUES ('application_id', 'someone-else')");
  }
  CHECK_THROWS_WITH(RecordsDb::open(other_app), Catch::Contains("someone-else"));
}
